"""Test configuration: hypothesis runs derandomized in CI (the same examples every run, so CI
is reproducible); locally it explores new examples each time. The ``toy_game`` fixture registers
the tests' third game (``tests/toy``) for one test.

Two depths. By default (the README's test command) the long statistical, differential and fuzz
runs are sampled smaller and the tests marked ``slow`` are deselected, so that the suite runs in a
few minutes; ``GENIAL_TESTS=full`` (``.ci/run`` sets it for its first run) runs everything at
full depth: every ``slow`` test, 16 differential games per rules (``GENIAL_DIFF_GAMES``
overrides), 200 fuzz examples (``GENIAL_FUZZ_EXAMPLES``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from .depth import FULL

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the ``slow`` tests unless ``GENIAL_TESTS=full`` (deselected, not skipped: the
    quick depth is a choice, and pytest's summary counts them as ``deselected``)."""
    if FULL:
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]
