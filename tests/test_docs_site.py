"""The documentation: the README is a landing page whose links all lead somewhere in the
repository, every page of ``docs/`` is on the site, and the examples of the getting-started page
and the user guide run as written (the tutorials run when the site is built: ``.ci/run``)."""

from __future__ import annotations

import re
from pathlib import Path

from .docs import DOCS, run_examples

ROOT = DOCS.parent
LINK = re.compile(r"(?<!!)\[[^\]]+\]\(([^)#\s]+)(#[^)]*)?\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _targets(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [m.group(1) or m.group(3) for m in LINK.finditer(text)]


def test_the_readme_is_a_landing_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert 100 <= len(lines) <= 200
    text = "\n".join(lines)
    for section in ("## Quick start", "## One example", "## What the opening analysis found",
                    "## Speed", "## Documentation"):
        assert section in text


def test_every_relative_link_of_the_readme_and_the_docs_exists():
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    missing = []
    for page in pages:
        for target in _targets(page):
            if re.match(r"[a-z]+:", target):
                continue  # a web address: not checked offline
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(ROOT)} -> {target}")
    assert missing == []


def test_every_page_is_on_the_site():
    """Sphinx builds every page under docs/; each must be in a table of contents (the strict
    build refuses orphans too, this says which one sooner)."""
    listed = set()
    for page in DOCS.rglob("*.md"):
        for block in re.findall(r"```\{toctree\}(.*?)```", page.read_text(encoding="utf-8"), re.S):
            base = page.parent.relative_to(DOCS)
            for line in block.splitlines():
                line = line.strip()
                if line and not line.startswith(":"):
                    listed.add(str(base / line) if str(base) != "." else line)
    pages = {str(p.relative_to(DOCS).with_suffix("")) for p in DOCS.rglob("*.md")}
    pages |= {str(p.relative_to(DOCS).with_suffix("")) for p in DOCS.rglob("*.ipynb")}
    assert pages - listed == {"index"}


def test_the_getting_started_examples_run():
    result = run_examples("getting-started.md")
    assert result.attempted >= 10 and result.failed == 0


def test_the_user_guide_examples_run():
    result = run_examples("guide.md")
    assert result.attempted >= 40 and result.failed == 0


def test_every_tutorial_ends_by_showing_something_and_tables_fit() -> None:
    """The site runs the tutorials and shows what each code cell's last value is: a tutorial
    whose last cell ends in an assignment (``figure = analysis.plot()``) shows no picture
    (issue 42). A table shown whole with its ``description`` column (a sentence a class) is
    squeezed to a word a line: the opening tutorial picks its columns."""
    import ast
    import json

    def code(path: Path) -> list[str]:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]

    for path in sorted((DOCS / "tutorials").glob("*.ipynb")):
        last = ast.parse(code(path)[-1]).body[-1]
        assert isinstance(last, ast.Expr), f"{path.name}: its last cell shows nothing"
    cells = code(DOCS / "tutorials" / "openings.ipynb")
    for source in cells:
        shown = ast.unparse(ast.parse(source).body[-1])
        assert shown not in ("table.head()", "table"), "the opening table shows every column"
    assert ast.unparse(ast.parse(cells[-1]).body[-1]) == "analysis.plot()"
