"""Test configuration: hypothesis runs derandomized in CI (the same examples every run, so CI
is reproducible); locally it explores new examples each time. The ``toy_game`` fixture registers
the tests' third game (``tests/toy``) for one test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:  # pragma: no cover
    from genial.registry import GameEntry

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def toy_game() -> Iterator[GameEntry]:
    """The tests' toy game (``tests/toy``, Pig) registered as ``"toy"`` for the test, through
    the public plug-in API only, and unregistered after it."""
    from genial.registry import register, unregister

    from .toy import GAME

    register(GAME)
    try:
        yield GAME
    finally:
        unregister(GAME.name)
