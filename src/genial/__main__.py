"""``python -m genial``: the command line."""

import sys

from .cli import main

sys.exit(main())
