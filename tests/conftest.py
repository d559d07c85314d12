"""Test configuration: hypothesis runs derandomized in CI (the same examples every run, so CI
is reproducible); locally it explores new examples each time."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
