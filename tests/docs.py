"""Running the Python examples of a page of docs/ as doctests."""

from __future__ import annotations

import doctest
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def run_examples(page: str) -> doctest.TestResults:
    """Run the ``>>>`` examples of ``docs/<page>``: how many ran and how many failed."""
    return doctest.testfile(
        str(DOCS / page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
