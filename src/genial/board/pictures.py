"""Pictures of an opening analysis (``genial.board.openings``), the board game's own: its HTML
table (``openings_html``, the analysis's ``_repr_html_``) and the plots (matplotlib, an optional
extra: ``pip install 'genial-sim[plot]'``): the hex-board heatmap and the ranked chart. The
plots are ``genial.render.plot``'s too. Pure functions: they draw on axes or return
a figure, and never choose a matplotlib backend or touch pyplot's global state. The figures they
return show themselves in Jupyter (as PNG) without ``%matplotlib inline``.

The heatmap does not overstate: its colours are a colour-blind-safe diverging map (purple above
the average, orange below) centred on the average, its scale is never narrower than the classes'
typical 95% interval, and a cell is coloured only where its difference from the average is
significant (95%, Holm-corrected over the cells); the others are drawn neutral and hatched.
"""

from __future__ import annotations

import io
import math
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..render.kit import COLOUR_VALUES, _num, _pct, _table
from ..stats import Z95, holm
from .geometry import COLOURS, SYMBOLS, area
from .rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    from .openings import OpeningAnalysis

__all__ = [
    "CMAP",
    "SYMBOL_COLOURS",
    "CellStatistics",
    "board_heatmap",
    "calibration_figure",
    "cell_statistics",
    "opening_figure",
    "openings_html",
]

Cell = tuple[int, int]

SYMBOL_COLOURS = COLOUR_VALUES
"""Display colours of R G B O Y P (the SVG pictures' too)."""
CMAP = "PuOr"
"""The heatmap's colour map: diverging, colour-blind safe (ColorBrewer PuOr): orange below the
centre, purple above, near white at it."""
_NO_DATA = "#d9d9d9"
_ABOVE, _BELOW = "#542788", "#b35806"  # the ends of PuOr, for the ranked chart


class CellStatistics:
    """Per cell of the board, the metric over the openings covering it (each opening counted
    once, each with its class's result), its 95% interval half-width, and whether it differs
    from the average after Holm's correction over the cells.

    ``values``, ``half_widths`` and ``p_holm`` map cells to floats; ``significant`` is the set
    of cells that differ (adjusted p < 0.05); ``class_half_width`` is the median 95%
    half-width of the classes' intervals (the scale's lower bound).
    """

    __slots__ = ("average", "class_half_width", "half_widths", "p_holm", "significant", "values")

    def __init__(
        self,
        average: float,
        values: dict[Cell, float],
        half_widths: dict[Cell, float],
        p_holm: dict[Cell, float],
        class_half_width: float,
    ) -> None:
        self.average = average
        self.values = values
        self.half_widths = half_widths
        self.p_holm = p_holm
        self.significant = frozenset(c for c, p in p_holm.items() if p < 0.05)
        self.class_half_width = class_half_width

    def scale(self) -> float:
        """The half-range of the colour scale: the largest significant difference from the
        average, and never less than the classes' median 95% half-width."""
        devs = [abs(self.values[c] - self.average) for c in self.significant]
        half = max([*devs, self.class_half_width if math.isfinite(self.class_half_width) else 0.0])
        return half if half > 0 else 1e-6


def cell_statistics(analysis: Any) -> CellStatistics:
    """The cells' statistics of an ``OpeningAnalysis`` (see ``CellStatistics``). A cell's
    value is a weighted mean of independent class results (each class is played from its own
    seed), so its variance is the weighted sum of the classes' variances, read from their 95%
    intervals.

    >>> from genial.openings import analyse
    >>> stats = cell_statistics(analyse(2, games_per_opening=8, seed=1, workers=1))
    >>> len(stats.values), stats.scale() >= stats.class_half_width
    (48, True)
    """
    table = analysis.table
    metric = analysis.metric
    result = dict(zip(table["class"], table[metric], strict=True))
    lo = dict(zip(table["class"], table[f"{metric}_lo"], strict=True))
    hi = dict(zip(table["class"], table[f"{metric}_hi"], strict=True))
    total: dict[Cell, float] = {}
    weight: dict[Cell, float] = {}
    variance: dict[Cell, float] = {}
    halves = []
    for cls in analysis.classes:
        value = result.get(cls.index)
        if value is None or not math.isfinite(value):
            continue
        half = (float(hi[cls.index]) - float(lo[cls.index])) / 2
        halves.append(half)
        var = (half / Z95) ** 2 if math.isfinite(half) else math.inf
        counts: dict[Cell, int] = {}
        for move in cls.members:
            for cell in move.cells or ():
                counts[cell] = counts.get(cell, 0) + 1
        for cell, w in counts.items():
            total[cell] = total.get(cell, 0.0) + w * float(value)
            weight[cell] = weight.get(cell, 0.0) + w
            variance[cell] = variance.get(cell, 0.0) + w * w * var
    cells = sorted(total, key=lambda c: (c[1], c[0]))
    values = {c: total[c] / weight[c] for c in cells}
    se = {c: math.sqrt(variance[c]) / weight[c] for c in cells}
    average = float(analysis.average)
    p = []
    for c in cells:
        if se[c] > 0 and math.isfinite(se[c]):
            p.append(math.erfc(abs(values[c] - average) / se[c] / math.sqrt(2)))
        else:
            p.append(1.0)
    adjusted = holm(p) if p else np.zeros(0)
    return CellStatistics(
        average=average,
        values=values,
        half_widths={c: Z95 * se[c] for c in cells},
        p_holm={c: float(v) for c, v in zip(cells, adjusted, strict=True)},
        class_half_width=float(np.median(halves)) if halves else math.nan,
    )


def _hex_centre(cell: tuple[int, int]) -> tuple[float, float]:
    """Cartesian centre of a pointy-top hex of unit radius; r grows downwards."""
    q, r = cell
    return (math.sqrt(3) * (q + r / 2), -1.5 * r)


def board_heatmap(
    ax: Any,
    values: Mapping[tuple[int, int], float],
    players: int = 2,
    *,
    cmap: str = CMAP,
    vmin: float | None = None,
    vmax: float | None = None,
    centre: float | None = None,
    neutral: Collection[tuple[int, int]] = (),
    label: str = "win rate",
) -> Any:
    """Draw the board of a ``players``-player game on ``ax``, one hexagon per cell of the area,
    cells in ``values`` coloured by their value, the printed symbols in their colours; returns
    the colour mapping (for a colour bar).

    With ``centre`` the scale is symmetric around it (``vmin``/``vmax`` default to the largest
    distance from it). Cells in ``neutral`` (differences the data do not support) are drawn in
    the scale's centre colour, hatched, whatever their value; cells without a value are grey.
    """
    import matplotlib as mpl
    from matplotlib.patches import RegularPolygon

    radius = Rules(players).radius
    finite = {c: v for c, v in values.items() if not math.isnan(v)}
    if centre is not None:
        spread = max((abs(v - centre) for c, v in finite.items() if c not in neutral), default=0.0)
        spread = spread or 1e-6
        lo = vmin if vmin is not None else centre - spread
        hi = vmax if vmax is not None else centre + spread
    else:
        lo = vmin if vmin is not None else min(finite.values(), default=0.0)
        hi = vmax if vmax is not None else max(finite.values(), default=1.0)
    norm = mpl.colors.Normalize(vmin=lo, vmax=hi if hi > lo else lo + 1e-9)
    mapping = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
    middle = mapping.to_rgba(np.asarray(centre if centre is not None else (lo + hi) / 2))
    symbols = {cell: c for c, cell in enumerate(SYMBOLS)}
    for cell in area(radius):
        x, y = _hex_centre(cell)
        face: Any
        hatch = None
        if cell in symbols:
            face, edge, width = SYMBOL_COLOURS[symbols[cell]], "black", 1.5
        elif cell in finite and cell in neutral:
            face, edge, width, hatch = middle, "#9a9a9a", 0.5, "...."
        elif cell in finite:
            face, edge, width = mapping.to_rgba(np.asarray(finite[cell])), "#555555", 0.5
        else:
            face, edge, width = _NO_DATA, "#bbbbbb", 0.5
        ax.add_patch(
            RegularPolygon(
                (x, y),
                6,
                radius=0.98,
                orientation=0.0,
                facecolor=face,
                edgecolor=edge,
                linewidth=width,
                hatch=hatch,
            )
        )
        if cell in symbols:
            c = symbols[cell]
            ax.text(
                x,
                y,
                COLOURS[c],
                ha="center",
                va="center",
                fontsize=8,
                fontweight="bold",
                color="black" if COLOURS[c] in "YO" else "white",
            )
    extent = math.sqrt(3) * (radius + 1)
    ax.set_xlim(-extent, extent)
    ax.set_ylim(-1.5 * radius - 1.5, 1.5 * radius + 1.5)
    ax.set_aspect("equal")
    ax.axis("off")
    return mapping


def _figure(**options: Any) -> Any:
    """A matplotlib Figure that shows itself in Jupyter (``_repr_png_``), made without pyplot."""
    cls: Any = __getattr__("Figure")
    return cls(**options)


_FIGURE_CLASS: list[Any] = []


def __getattr__(name: str) -> Any:
    """``Figure``: a ``matplotlib.figure.Figure`` with a ``_repr_png_``, so that Jupyter shows
    the figures returned here without any backend being chosen (made on first use: matplotlib
    is optional)."""
    if name != "Figure":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if not _FIGURE_CLASS:
        try:
            from matplotlib.figure import Figure as Base
        except ImportError:  # pragma: no cover - exercised only without matplotlib
            raise ImportError("plots need matplotlib: pip install 'genial-sim[plot]'") from None

        class Figure(Base):
            """A matplotlib Figure that displays itself in Jupyter as PNG."""

            def _repr_png_(self) -> bytes:
                buffer = io.BytesIO()
                self.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
                return buffer.getvalue()

        Figure.__module__ = __name__
        Figure.__qualname__ = "Figure"
        _FIGURE_CLASS.append(Figure)
    return _FIGURE_CLASS[0]


def opening_figure(analysis: Any, *, top: int = 12) -> Any:
    """The figure of ``OpeningAnalysis.plot``: heatmap of the metric by opening cell (left) and
    the best and worst ``top`` classes with 95% intervals (right), with a caption saying what
    the colours mean and how sure they are."""
    table = analysis.table
    figure = _figure(figsize=(13, 6.8), layout="constrained")
    left, right = figure.subplots(1, 2, width_ratios=[1.0, 1.25])
    metric = analysis.metric
    win = metric == "win_rate"
    what = f"seat {analysis.seat} win rate" if win else "result (lowest counter)"
    stats = cell_statistics(analysis)
    average = stats.average
    half = stats.scale()
    neutral = set(stats.values) - stats.significant
    mapping = board_heatmap(
        left,
        stats.values,
        analysis.players,
        vmin=average - half,
        vmax=average + half,
        centre=average,
        neutral=neutral,
        label=what,
    )
    shown = f"{average:.1%}" if win else f"{average:.2f}"
    bar = figure.colorbar(mapping, ax=left, shrink=0.7, label=f"{what} (centre: average {shown})")
    if win:
        bar.ax.yaxis.set_major_formatter(_percent())
    policy = ", ".join(sorted(set(analysis.policy)))
    title = (
        f"{what.capitalize()} of the openings covering each cell\n"
        f"rules {analysis.rules}, {policy}, {int(table['games'].sum()):,} games"
    )
    if stats.values and not stats.significant:  # all hatched: say why on the picture itself
        per_class = int(table["games"].min()) if len(table) else 0
        title += (
            f"\nno cell differs detectably at {per_class:,} games a class: "
            "play more games per opening"
        )
    left.set_title(title)
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
    right.errorbar(rate, y, xerr=err, fmt="none", ecolor="#777777", capsize=2)
    above = rate >= average
    differs = rows["differs"].to_numpy(dtype=bool)
    for mask, colour, name in ((above, _ABOVE, "above"), (~above, _BELOW, "below")):
        for filled in (True, False):
            pick = mask & (differs if filled else ~differs)
            if not pick.any():
                continue
            right.scatter(
                rate[pick],
                np.asarray(y)[pick],
                s=26,
                zorder=3,
                marker="o" if name == "above" else "s",
                facecolors=colour if filled else "white",
                edgecolors=colour,
                label=f"{name} the average, "
                + ("differs (Holm, 5%)" if filled else "not significant"),
            )
    right.axvline(
        average,
        color="black",
        linestyle="--",
        linewidth=1,
        label=f"average {shown}",
    )
    right.set_yticks(y)
    right.set_yticklabels(
        [
            f"{'* ' if b else ''}{e}  (n={g:,})"
            for e, g, b in zip(rows["example"], rows["games"], rows["best"], strict=True)
        ],
        fontsize=7,
    )
    right.set_xlabel(f"{what}, 95% " + ("Wilson interval" if win else "interval"))
    if win:
        right.xaxis.set_major_formatter(_percent())
    right.set_title(
        f"Best and worst {n} of {len(table)} opening classes\n* may be best: {analysis.best_words}",
        fontsize=9,
    )
    right.legend(loc="lower right", fontsize=7)
    right.grid(axis="x", alpha=0.3)
    unit = "pp" if win else "points"
    scale = f"±{half * 100:.1f} {unit}" if win else f"±{half:.2f} {unit}"
    figure.supxlabel(
        f"Heatmap: purple = above the average, orange = below; scale {scale} around the average "
        f"(at least the classes' median 95% interval half-width). A cell is coloured only where "
        f"its difference from the average is significant (95%, Holm-corrected over the "
        f"{len(stats.values)} cells: {len(stats.significant)} are); hatched cells do not differ "
        "detectably, grey cells are covered by no opening, lettered cells are the printed symbols.",
        fontsize=8,
        wrap=True,
    )
    return figure


def calibration_figure(metrics: Any) -> Any:
    """The learned evaluation's calibration (docs/value.md): for each model in ``metrics``
    (number of counter sets -> its ``"calibration"`` bins of ``[mean estimate, mean result,
    positions]``, as ``genial.learn`` records them), the mean result against the mean estimate,
    beside the diagonal of a perfect model."""
    figure = _figure(figsize=(5.2, 4.6))
    ax = figure.add_subplot()
    ax.plot([0, 1], [0, 1], color="0.6", linestyle="--", linewidth=1, label="calibrated")
    names = {1: "solo (1 set)", 2: "2 sets", 3: "3 sets", 4: "4 sets"}
    for key in sorted(metrics, key=int):
        bins = [b for b in metrics[key]["calibration"] if b[0] is not None and b[2] > 0]
        ax.plot(
            [b[0] for b in bins],
            [b[1] for b in bins],
            marker="o",
            markersize=4,
            label=names.get(int(key), f"{key} sets"),
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("mean estimate (held-out positions, 10 bins)")
    ax.set_ylabel("mean result")
    ax.set_title("Learned evaluation: calibration")
    ax.legend(loc="upper left", frameon=False)
    return figure


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1.0, decimals=1)


def openings_html(analysis: OpeningAnalysis, rows: int = 5) -> str:
    """An opening analysis as its best and worst ``rows`` classes with their 95% intervals
    and whether they differ from the average (Holm, 5%).

    >>> from genial.openings import analyse
    >>> page = openings_html(analyse(2, games_per_opening=4, seed=1, workers=1))
    >>> page.count("<tr>"), "differs" in page  # the head, 5 + 5 classes and a gap, the foot
    (13, True)
    """
    a = analysis
    t = a.table
    solo = a.metric == "lowest"
    caption = (
        f"Openings: rules {a.rules}, policy {', '.join(sorted(set(a.policy)))}, "
        f"{int(t['games'].sum()):,} games over {len(t)} classes"
    )
    if a.reply_to:
        caption += f", replies to {a.reply_to}"
    if solo:
        caption += f"; mean result {_num(a.average)} [{_num(a.average_lo)}, {_num(a.average_hi)}]"
        head = ["rank", "example", "games", "result", "95% interval", "differs", "description"]
    else:
        caption += (
            f"; seat {a.seat} wins {_pct(a.average)} [{_pct(a.average_lo)}, "
            f"{_pct(a.average_hi)}] overall"
        )
        head = [
            "rank",
            "example",
            "games",
            "win rate",
            "95% interval",
            "lowest",
            "margin",
            "differs",
            "description",
        ]
    caption += f"; best set: {a.best_words}, marked *"
    confirmed = a.confirm > 0 and "confirmed" in t
    if confirmed:
        head.insert(len(head) - 2, f"confirmed ({a.confirm:,} fresh games)")
    picks: list[int] = list(range(len(t)))
    if len(t) > 2 * rows:
        picks = [*range(rows), -1, *range(len(t) - rows, len(t))]
    body = []
    for i in picks:
        if i == -1:
            body.append(["…"] + [""] * (len(head) - 1))
            continue
        row = t.iloc[i]
        if solo:
            values = [
                _num(float(row["lowest"])),
                f"[{_num(float(row['lowest_lo']))}, {_num(float(row['lowest_hi']))}]",
            ]
        else:
            values = [
                _pct(float(row["win_rate"])),
                f"[{_pct(float(row['win_rate_lo']))}, {_pct(float(row['win_rate_hi']))}]",
                _num(float(row["lowest"])),
                f"{float(row['margin']):+.2f}" if math.isfinite(row["margin"]) else "–",
            ]
        if confirmed:
            shown = _num if solo else _pct
            values.append(
                f"{shown(float(row['confirmed']))} [{shown(float(row['confirmed_lo']))}, "
                f"{shown(float(row['confirmed_hi']))}]"
                if int(row["confirm_games"]) > 0
                else "–"
            )
        body.append(
            [
                f"{i + 1}{'*' if bool(row['best']) else ''}",
                str(row["example"]),
                f"{int(row['games']):,}",
                *values,
                "yes" if bool(row["differs"]) else "no",
                str(row["description"]),
            ]
        )
    foot = (
        "95% intervals; differs: from the average, two-sided test, Holm-corrected, 5%; "
        "* may be best (multiple comparisons with the best, 95%)"
    )
    return _table(caption, head, body, foot, left=(0, 1, len(head) - 1))
