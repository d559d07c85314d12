"""The package's import graph has no cycle, counting the imports inside functions too (a
presentation hook such as ``_repr_svg_`` may import its renderer lazily, but the renderer must
not import the game back); imports under ``if TYPE_CHECKING:`` do not count (they never run).

The graph is grimp's (the library import-linter is built on), built from the source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp")

import genial  # noqa: E402

PACKAGE = Path(genial.__file__).parent
# the compiled kernels (``from .. import _core``): grimp sees such an import as one of the package
# that holds the kernel, since it reads no compiled module
KERNELS = sorted({p.name.split(".")[0] for p in PACKAGE.rglob("*.pyx")})
_KERNEL_IMPORT = re.compile(r"\b(" + "|".join(map(re.escape, KERNELS)) + r")\b")

def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports (anywhere in its text), without the kernels' imports."""
    graph = grimp.build_graph("genial", exclude_type_checking_imports=True, cache_dir=None)
    edges: dict[str, set[str]] = {module: set() for module in graph.modules}
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            details = graph.get_import_details(importer=importer, imported=imported)
            if imported in graph.modules and any(
                not (_is_package(imported) and _KERNEL_IMPORT.search(d["line_contents"]))
                for d in details
            ):
                edges[importer].add(imported)
    return edges


def _is_package(module: str) -> bool:
    return (PACKAGE.parent.joinpath(*module.split(".")) / "__init__.py").exists()


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (or a module importing
    itself), each as one cycle through it, found by Tarjan's algorithm (iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    found.append(_cycle_through(sorted(component), edges))
    return found


def _cycle_through(component: list[str], edges: dict[str, set[str]]) -> list[str]:
    """One cycle from the component's first module back to it (breadth first)."""
    members = set(component)
    start = component[0]
    came: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(edges[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if child not in came:
                    came[child] = node
                    following.append(child)
        frontier = following
    return component  # pragma: no cover - a component always has a cycle


def test_the_cycle_finder_finds_cycles() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(edges) == [["a", "b", "c", "a"], ["e", "e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_function_level_imports_but_not_type_checking_ones() -> None:
    edges = import_graph()
    assert "genial.board.svg" in edges["genial.board.game"]  # Game._repr_svg_
    assert "genial.board.game" not in edges["genial.board.svg"]  # under TYPE_CHECKING only
    assert "genial" not in edges["genial.board.game"]  # `from .. import _core`


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    shown = "\n".join(" -> ".join(cycle) for cycle in found)
    assert not found, f"import cycles (function-level imports included):\n{shown}"
