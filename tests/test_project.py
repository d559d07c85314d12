"""The repository's own files a user or contributor relies on: the licence the package metadata
names, and the CI workflow that runs ``.ci/run`` on every push and pull request."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11 on (the package supports 3.10)

ROOT = Path(__file__).resolve().parents[1]


def test_the_licence_file_is_the_one_the_metadata_names():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["license"] == "MIT" and meta["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert "THE SOFTWARE IS PROVIDED \"AS IS\"" in text


def test_ci_runs_on_every_push_and_pull_request():
    text = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    trigger = "\n" + text.split("\non:\n")[1].split("\njobs:")[0]
    assert "\n  push:" in trigger and "\n  pull_request:" in trigger
    assert "tags" not in trigger  # every push, not only tags
    assert "bash .ci/run" in text
