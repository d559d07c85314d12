"""Every figure the README and docs/ state from a computation is recomputed from its seed by
docs/findings.py (issue 41): the cheap findings at every depth, every one with
``GENIAL_FINDINGS=all``.
A figure that goes stale (a changed seed scheme, a changed default, a changed rule) fails here
with the phrase the documents should now print."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("findings", ROOT / "docs" / "findings.py")
assert _spec is not None and _spec.loader is not None
findings = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("findings", findings)  # (its dataclass looks its module up)
_spec.loader.exec_module(findings)


_ALL = os.environ.get("GENIAL_FINDINGS", "").lower() == "all"


@pytest.mark.parametrize(
    "finding",
    [
        pytest.param(f, id=f.name)
        for f in findings.FINDINGS
        if f.cheap or _ALL
    ],
)
def test_the_documents_print_what_the_computation_gives(finding: object) -> None:
    """The cheap findings at every depth; the dear ones (minutes each, many more in CI's debug
    build) with ``GENIAL_FINDINGS=all`` only, as ``python docs/findings.py --all`` runs them
    before a figure is published."""
    phrases = finding.compute()  # type: ignore[attr-defined]
    assert phrases
    assert findings.missing(phrases) == []


def test_a_phrase_a_document_does_not_print_is_found_missing(tmp_path: Path) -> None:
    (tmp_path / "doc.md").write_text("the best class wins\n  **52.14%\n[51.45%, 52.83%]**\n")
    assert findings.missing([("doc.md", "wins **52.14% [51.45%, 52.83%]**")], tmp_path) == []
    assert findings.missing([("doc.md", "wins **52.15% [51.45%, 52.83%]**")], tmp_path) == [
        "doc.md: wins **52.15% [51.45%, 52.83%]**"
    ]


def test_every_finding_has_a_unique_name_and_the_command_line_lists_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = [f.name for f in findings.FINDINGS]
    assert len(set(names)) == len(names) and any(f.cheap for f in findings.FINDINGS)
    assert findings.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in names)
