"""How deep the tests go: ``GENIAL_TESTS=full`` (``.ci/run``) or the quick default of the
README's test command (tests/conftest.py)."""

from __future__ import annotations

import os

FULL = os.environ.get("GENIAL_TESTS", "").lower() == "full"


def sized(variable: str, full: int, quick: int) -> int:
    """The environment variable ``variable`` if set, else ``full`` at full depth, else ``quick``."""
    value = os.environ.get(variable)
    return max(1, int(value)) if value else (full if FULL else quick)
