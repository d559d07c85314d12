"""Plots (matplotlib, an optional extra: ``pip install 'genial-sim[plot]'``): the hex-board
heatmap and the ranked chart of an opening analysis. Pure functions: they draw on axes or return
a figure, and never choose a matplotlib backend."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..geometry import COLOURS, SYMBOLS, area
from ..rules import Rules

__all__ = ["SYMBOL_COLOURS", "board_heatmap", "opening_figure"]


SYMBOL_COLOURS = ("#d62728", "#2ca02c", "#1f77b4", "#ff7f0e", "#e6c619", "#9467bd")
"""Display colours of R G B O Y P."""


def _hex_centre(cell: tuple[int, int]) -> tuple[float, float]:
    """Cartesian centre of a pointy-top hex of unit radius; r grows downwards."""
    q, r = cell
    return (math.sqrt(3) * (q + r / 2), -1.5 * r)


def board_heatmap(
    ax: Any,
    values: dict[tuple[int, int], float],
    players: int = 2,
    *,
    cmap: str = "RdYlGn",
    vmin: float | None = None,
    vmax: float | None = None,
    label: str = "win rate",
) -> Any:
    """Draw the board of a ``players``-player game on ``ax``, one hexagon per cell of the area,
    cells in ``values`` coloured by their value, the printed symbols in their colours; returns
    the colour mapping (for a colour bar)."""
    import matplotlib as mpl
    from matplotlib.patches import RegularPolygon

    radius = Rules(players).radius
    finite = [v for v in values.values() if not math.isnan(v)]
    lo = vmin if vmin is not None else (min(finite) if finite else 0.0)
    hi = vmax if vmax is not None else (max(finite) if finite else 1.0)
    norm = mpl.colors.Normalize(vmin=lo, vmax=hi if hi > lo else lo + 1e-9)
    mapping = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
    symbols = {cell: c for c, cell in enumerate(SYMBOLS)}
    for cell in area(radius):
        x, y = _hex_centre(cell)
        face: Any
        if cell in symbols:
            face, edge, width = SYMBOL_COLOURS[symbols[cell]], "black", 1.5
        elif cell in values and not math.isnan(values[cell]):
            face, edge, width = mapping.to_rgba(np.asarray(values[cell])), "#555555", 0.5
        else:
            face, edge, width = "#f2f2f2", "#bbbbbb", 0.5
        ax.add_patch(
            RegularPolygon(
                (x, y),
                6,
                radius=0.98,
                orientation=0.0,
                facecolor=face,
                edgecolor=edge,
                linewidth=width,
            )
        )
        if cell in symbols:
            ax.text(
                x,
                y,
                COLOURS[symbols[cell]],
                ha="center",
                va="center",
                fontsize=8,
                fontweight="bold",
                color="white",
            )
    extent = math.sqrt(3) * (radius + 1)
    ax.set_xlim(-extent, extent)
    ax.set_ylim(-1.5 * radius - 1.5, 1.5 * radius + 1.5)
    ax.set_aspect("equal")
    ax.axis("off")
    return mapping


def opening_figure(analysis: Any, *, top: int = 12) -> Any:
    """The figure of ``OpeningAnalysis.plot``: heatmap of win rate by opening cell (left) and
    the best and worst ``top`` classes with 95% intervals (right)."""
    from matplotlib.figure import Figure

    table = analysis.table
    figure = Figure(figsize=(13, 6.2))
    left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.0, 1.25]})
    metric = analysis.metric
    what = f"seat {analysis.seat} win rate" if metric == "win_rate" else "result (lowest counter)"
    mapping = board_heatmap(left, analysis.cell_win_rates(), analysis.players, label=what)
    figure.colorbar(mapping, ax=left, shrink=0.7, label=what)
    policy = ", ".join(sorted(set(analysis.policy)))
    left.set_title(
        f"{what.capitalize()} of the openings covering each cell\n"
        f"rules {analysis.rules}, {policy}, {int(table['games'].sum()):,} games"
    )
    n = min(top, len(table) // 2) if len(table) > 2 * top else len(table)
    rows = (
        table.head(n)
        if len(table) <= 2 * top
        else table.iloc[list(range(n)) + list(range(len(table) - n, len(table)))]
    )
    y = list(range(len(rows)))[::-1]
    rate = rows[metric].to_numpy()
    err = np.maximum(
        0.0, [rate - rows[f"{metric}_lo"].to_numpy(), rows[f"{metric}_hi"].to_numpy() - rate]
    )
    colours = ["#2ca02c" if i < n else "#d62728" for i in range(len(rows))]
    right.errorbar(rate, y, xerr=err, fmt="none", ecolor="#777777", capsize=2)
    right.scatter(rate, y, c=colours, zorder=3, s=18)
    right.axvline(
        analysis.average,
        color="black",
        linestyle="--",
        linewidth=1,
        label=(
            f"average {analysis.average:.1%}"
            if metric == "win_rate"
            else f"average {analysis.average:.2f}"
        ),
    )
    right.set_yticks(y)
    right.set_yticklabels(
        [f"{e}  (n={g:,})" for e, g in zip(rows["example"], rows["games"], strict=True)], fontsize=7
    )
    right.set_xlabel(f"{what}, 95% " + ("Wilson interval" if metric == "win_rate" else "interval"))
    right.set_title(f"Best and worst {n} of {len(table)} opening classes")
    right.legend(loc="lower right", fontsize=8)
    right.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    return figure
