"""HTML for people: compact tables of results for Jupyter (``Summary._repr_html_``,
``Playouts._repr_html_``, ``OpeningAnalysis._repr_html_``) and the replay viewer, one
self-contained page that steps through a recorded game of either game (``replay_html``).

Every text that comes from data is escaped; the tables show a few rows and columns, never an
array dump.

>>> import genial
>>> runs = genial.simulate(200, 2, policy="greedy", seed=1)
>>> table = summary_html(runs.summary())
>>> table.startswith("<table") and table.count("<tr>") <= 6
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from ..board.pictures import openings_html
from ..registry import entry_of, replay
from .kit import _num, _pct, _table, text_picture

if TYPE_CHECKING:  # pragma: no cover
    from ..batch.results import Playouts, Summary

__all__ = ["openings_html", "playouts_html", "replay_html", "summary_html"]

# -- results -------------------------------------------------------------------------------------


def summary_html(summary: Summary) -> str:
    """``Summary`` as a small table: one row per seat (per team in the team game) with its
    policy, win rate and 95% Wilson interval, the lowest colour (mean, sd, median) and the mean
    bonus plays and swaps; the solo game shows the result's distribution instead.

    >>> import genial
    >>> s = genial.simulate(100, 1, seed=3).summary()
    >>> "result" in summary_html(s) and "<td" in summary_html(s)
    True
    """
    s = summary
    caption = f"{s.games:,} games, rules {s.rules}, policies {', '.join(s.policies)}"
    foot = f"{s.moves_label} per game {_num(s.mean_plays, 1)}, turns {_num(s.mean_turns, 1)}"
    if s.seconds:
        foot += f"; {s.games / s.seconds:,.0f} games/s"
    if s.players == 1:
        head = ["", "policy", "mean result", "sd", "5%", "25%", "50%", "75%", "95%"]
        rows = [
            [
                label,
                s.policies[i],
                _num(float(s.mean_lowest[i])),
                _num(float(s.std_lowest[i])),
                *(_num(float(v), 0) for v in s.lowest_quantiles[i]),
            ]
            for i, label in enumerate(s.labels)
        ]
        return _table(caption + " (result = lowest counter)", head, rows, foot, left=(0, 1))
    if s.games:
        caption += f"; first place shared in {s.shared_first:,} ({s.shared_first / s.games:.1%})"
    head = [
        "",
        "policy",
        "win rate",
        "95% interval",
        "lowest: mean",
        "sd",
        "median",
        "bonus",
        "swaps",
    ]
    rows = [
        [
            label,
            s.policies[i],
            _pct(float(s.win_rate[i])),
            f"[{_pct(float(s.win_rate_lo[i]))}, {_pct(float(s.win_rate_hi[i]))}]",
            _num(float(s.mean_lowest[i])),
            _num(float(s.std_lowest[i])),
            _num(float(s.lowest_quantiles[i][2]), 1),
            _num(float(s.mean_bonus[i])),
            _num(float(s.mean_swaps[i])),
        ]
        for i, label in enumerate(s.labels)
    ]
    return _table(caption, head, rows, foot, left=(0, 1))


def playouts_html(runs: Playouts, rows: int = 5) -> str:
    """``Playouts`` as its size and first ``rows`` games: winner, ranks and lowest colour per
    seat, game length, and the columns it holds with their shapes (no array dumps).

    >>> import genial
    >>> runs = genial.simulate(50, 3, seed=2)
    >>> page = playouts_html(runs)
    >>> page.count("<tr>"), "45 more games" in page  # the head, five games, the foot
    (7, True)
    """
    n = len(runs)
    p = runs.players
    names = runs.rows.dtype.names or ()
    length = "placements" if "placements" in names else "plays"
    caption = f"Playouts: {n:,} games, rules {runs.rules}, policies {', '.join(runs.policies)}"
    head = ["game", "winner", "ranks", "lowest", "turns", length, "truncated"]
    shown = min(max(int(rows), 0), n)
    body = []
    for i in range(shown):
        winner = int(runs.winner[i])
        moves = int(runs.column(length)[i].sum()) if length == "plays" else int(runs.placements[i])
        body.append(
            [
                str(int(runs.game[i])),
                "shared" if winner < 0 else str(winner),
                " ".join(str(int(v)) for v in runs.ranks[i]),
                " ".join(str(int(v)) for v in runs.lowest[i]),
                str(int(runs.turns[i])),
                str(moves),
                "yes" if bool(runs.truncated[i]) else "",
            ]
        )
    shapes = ", ".join(
        f"{name} {tuple(runs.column(name).shape)}" for name in names if name != "winner"
    )
    foot = (f"… {n - shown:,} more games; " if n > shown else "") + f"columns: {shapes}"
    if p > 1:
        foot += "; ranks 0 = best, per seat"
    if runs.logs is not None:
        foot += "; with records"
    return _table(caption, head, body, foot)


# -- the replay viewer ---------------------------------------------------------------------------

_PAGE_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:12px;color:#222;
background:#faf8f3}
h1{font-size:1.15em;line-height:1.3;margin:0 0 8px}
main{display:flex;gap:16px;align-items:flex-start}
#picture{flex:1 1 0;min-width:0}
#picture svg{display:block;box-sizing:border-box;max-width:100%;height:auto;
width:min(100%,calc((100vh - 64px) * var(--ratio,1.5)));max-height:calc(100vh - 64px);
border:1px solid #ccc;background:#fff}
aside{flex:0 0 360px;display:flex;flex-direction:column;max-height:calc(100vh - 64px)}
.controls{display:flex;flex-wrap:nowrap;gap:6px;align-items:stretch;margin-bottom:8px;
white-space:nowrap}
.controls button{flex:none;font-size:1.05em;min-width:2.2em;padding:3px 6px;cursor:pointer}
#counter{flex:1 0 7em;display:flex;align-items:center;justify-content:center;
font-variant-numeric:tabular-nums}
#status{flex:none;min-height:2.6em;margin:4px 0 8px}
table.scores{flex:none;align-self:flex-start;border-collapse:collapse;margin-bottom:8px;
font-variant-numeric:tabular-nums}
table.scores td,table.scores th{padding:1px 6px;text-align:right}
table.scores tr.current{font-weight:bold;background:#f0e8d0}
ol#moves{flex:1 1 auto;min-height:6em;overflow-y:auto;margin:0;padding-left:3.2em;
border:1px solid #ddd;background:#fff}
ol#moves li{padding:1px 4px;cursor:pointer;font-variant-numeric:tabular-nums}
ol#moves li:hover{background:#eef}
ol#moves li.start{list-style:none;margin-left:-2.6em;color:#555}
ol#moves li.current{background:#c2185b;color:#fff}
.keys{flex:none;margin:6px 0 0;color:#666;font-size:0.85em}
@media (max-width:699px){
main{flex-direction:column;align-items:stretch}
.controls{max-width:420px}
#picture svg{width:100%;max-height:none}
aside{flex:none;max-height:none}
ol#moves{max-height:50vh}
}
"""

_PAGE_JS = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("genial-data").textContent);
  var steps = data.steps, fragments = data.fragments, last = steps.length - 1;
  var svg = document.querySelector("#picture svg");
  var timed = Array.prototype.slice.call(svg.querySelectorAll("[data-from]"));
  var arrows = Array.prototype.slice.call(svg.querySelectorAll(".to-move"));
  var panels = Array.prototype.slice.call(svg.querySelectorAll("g.panel"));
  var status = document.getElementById("status");
  var svgStatus = svg.querySelector("text.status");
  var counter = document.getElementById("counter");
  var items = Array.prototype.slice.call(document.querySelectorAll("#moves li"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("table.scores tbody tr"));
  var shown = panels.map(function () { return -1; });
  var step = -1, timer = null;
  function show(i) {
    i = Math.max(0, Math.min(last, i));
    var s = steps[i];
    timed.forEach(function (el) {
      var from = +el.getAttribute("data-from"), to = el.getAttribute("data-to");
      var on = from <= i && (to === null || i <= +to);
      if (on) { el.removeAttribute("display"); } else { el.setAttribute("display", "none"); }
    });
    arrows.forEach(function (el) {
      if (+el.getAttribute("data-player") === s.current) { el.removeAttribute("display"); }
      else { el.setAttribute("display", "none"); }
    });
    panels.forEach(function (el, p) {
      if (shown[p] !== s.panels[p]) {
        el.innerHTML = fragments[s.panels[p]];
        shown[p] = s.panels[p];
      }
    });
    rows.forEach(function (tr, p) {
      var cells = tr.querySelectorAll("td");
      s.scores[p].forEach(function (v, c) { cells[c].textContent = v; });
      if (data.lowest) {
        cells[s.scores[p].length].textContent = Math.min.apply(null, s.scores[p]);
      }
      tr.className = p === s.current ? "current" : "";
    });
    status.textContent = s.said ? s.said + " Now " + s.status + "." : s.status + ".";
    svgStatus.textContent = s.status;
    counter.textContent = "move " + i + " / " + last;
    if (step >= 0 && items[step]) {
      items[step].className = items[step].className.replace(/ ?current/, "");
    }
    if (items[i]) {
      items[i].className += " current";
      var list = items[i].parentNode, top = items[i].offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 20) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    }
    step = i;
    document.body.setAttribute("data-step", String(i));
  }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    play.textContent = "play";
  }
  var play = document.getElementById("play");
  document.getElementById("first").onclick = function () { stop(); show(0); };
  document.getElementById("prev").onclick = function () { stop(); show(step - 1); };
  document.getElementById("next").onclick = function () { stop(); show(step + 1); };
  document.getElementById("last").onclick = function () { stop(); show(last); };
  play.onclick = function () {
    if (timer !== null) { stop(); return; }
    if (step >= last) { show(0); }
    play.textContent = "pause";
    timer = setInterval(function () {
      if (step >= last) { stop(); } else { show(step + 1); }
    }, 700);
  };
  items.forEach(function (li, i) { li.onclick = function () { stop(); show(i); }; });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var to = {ArrowRight: step + 1, ArrowDown: step + 1, ArrowLeft: step - 1, ArrowUp: step - 1,
              PageDown: step + 10, PageUp: step - 10, Home: 0, End: last}[e.key];
    if (to === undefined) { return; }
    e.preventDefault(); stop(); show(to);
  });
  function fromHash() {
    var at = parseInt((location.hash || "").replace("#", ""), 10);
    return isNaN(at) ? null : at;
  }
  window.addEventListener("hashchange", function () {
    var at = fromHash();
    if (at !== null) { stop(); show(at); }
  });
  var start = fromHash();
  show(start === null ? 0 : start);
})();
"""


def _json_for_script(value: Any) -> str:
    """JSON that cannot end its ``<script>`` element early."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _gains(before: Sequence[int], after: Sequence[int], columns: Sequence[tuple[str, str]]) -> str:
    pairs = zip(columns, before, after, strict=True)
    return ", ".join(f"+{b - a} {heading}" for (heading, _), a, b in pairs if b > a)


def replay_html(record: Mapping[str, Any], *, title: str | None = None) -> str:
    """One self-contained HTML page (inline CSS, script and data, no network) that steps
    through a recorded game of any registered game: ``record`` is what ``Game.to_record()``
    or ``CardGame.to_record()`` made (told apart by its ``"format"``: ``registry.replay``).
    The page has buttons (first, previous, next, last, play), keys (arrows, Page Up/Down,
    Home, End), the move list (click a move to go there) and the scores; ``page.html#12``
    opens at move 12. The heading names the game, its rules and its length, never its result
    (each step's status shows under the controls). The picture and the controls sit side by
    side, the picture scaled to the window's height and the move list scrolling in its own
    box (stacked below 700 pixels wide).

    Every position is replayed with the library; the picture is drawn once, and each step
    holds only what changed (its players' panels and which tiles show). The picture and the
    score table are the entry's ``replay_picture``; a game without one shows each position's
    text (``genial.render.kit.text_picture``).

    >>> from genial import Game
    >>> game = Game(2, seed=4)
    >>> for _ in range(3):
    ...     game.play(game.choose("greedy"))
    >>> page = replay_html(game.to_record())
    >>> page.startswith("<!DOCTYPE html>") and page.count('<li data-step=') == 4
    True
    """
    from .svg import replay_picture

    game = replay(record)  # RecordError for what is not a record of a registered game
    found = entry_of(game)
    if found.replay_picture is None:  # a game without a picture: its texts, step by step
        picture = text_picture(game, found.noun)
    else:
        picture = replay_picture(game)
    kind = picture.noun
    moves = list(game.moves)
    n = len(moves)
    players = game.players
    fragments: list[str] = []
    index: dict[str, int] = {}
    states: list[dict[str, Any]] = []
    movers: list[int] = [0] * n
    bonus: list[bool] = [False] * n
    for i in range(n, -1, -1):  # from the end back to the start, by undo
        panels = []
        for p in range(players):
            text = picture.panel(game, p)
            if text not in index:
                index[text] = len(fragments)
                fragments.append(text)
            panels.append(index[text])
        states.append(
            {
                "panels": panels,
                "status": picture.status(game),
                "current": -1 if game.is_over else game.current_player,
                "scores": picture.scores(game),
            }
        )
        if i > 0:
            game.undo()
            movers[i - 1] = game.current_player
            bonus[i - 1] = picture.owed is not None and picture.owed(game) > 0
    states.reverse()
    items = ['<li data-step="0" class="start">start</li>']
    for j, move in enumerate(moves):
        p = movers[j]
        gained = _gains(states[j]["scores"][p], states[j + 1]["scores"][p], picture.columns)
        what = f"player {p}: {move}"
        if bonus[j]:
            what += " (bonus)"
        if gained:
            what += f" ({gained})"
        states[j + 1]["said"] = f"Move {j + 1}, {what}."
        items.append(f'<li data-step="{j + 1}" value="{j + 1}">{escape(what)}</li>')
    first = states[0]
    svg = picture.document([fragments[i] for i in first["panels"]], first["status"])
    name = title or f"genial replay: {kind}, rules {game.rules}, {n} moves"
    ratio = f"{picture.width / picture.height:.4f}"  # the picture's width over its height
    low = picture.lowest
    head_cells = "".join(
        f'<th title="{escape(title)}">{escape(heading)}</th>' for heading, title in picture.columns
    ) + ('<th title="the lowest of the row">low</th>' if low else "")
    cells = "<td></td>" * (len(picture.columns) + low)
    score_rows = "".join(f"<tr><th>player {p}</th>{cells}</tr>" for p in range(players))
    data = {"steps": states, "fragments": fragments, "lowest": low}
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(name)}</title><style>{_PAGE_CSS}</style></head><body>"
        f"<h1>{escape(name)}</h1>"  # the result only shows at the last move: no spoiler
        f'<main><div id="picture" style="--ratio:{ratio}">{svg}</div><aside>'
        '<div class="controls">'
        '<button id="first" title="first (Home)" aria-label="first">|&#x25C0;</button>'
        '<button id="prev" title="previous (Left)" aria-label="previous">&#x25C0;</button>'
        '<span id="counter" aria-live="polite"></span>'
        '<button id="next" title="next (Right)" aria-label="next">&#x25B6;</button>'
        '<button id="last" title="last (End)" aria-label="last">&#x25B6;|</button>'
        '<button id="play" title="play through">play</button></div>'
        '<p id="status" aria-live="polite"></p>'
        f'<table class="scores"><thead><tr><th></th>{head_cells}</tr></thead>'
        f"<tbody>{score_rows}</tbody></table>"
        f'<ol id="moves">{"".join(items)}</ol>'
        '<p class="keys">Keys: &#x2190; &#x2192; step, Page Up/Down ten moves, Home/End '
        "start/end; click a move to go there.</p>"
        "</aside></main>"
        f'<script type="application/json" id="genial-data">{_json_for_script(data)}</script>'
        f"<script>{_PAGE_JS}</script></body></html>\n"
    )


# -- position analyses and arenas ----------------------------------------------------------------

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis import Evaluation
    from ..arena import ArenaResult


def evaluation_html(result: Evaluation, rows: int = 10) -> str:
    """A position analysis (``genial.analysis.evaluate``) as its first ``rows`` moves: the
    playouts each got, win rate (the result in the solo game) with its 95% interval, mean
    rank, lowest colour and the points the move scores now.

    >>> import genial
    >>> from genial.analysis import evaluate
    >>> page = evaluation_html(evaluate(genial.Game(2, seed=1), playouts=8, seed=1, workers=1))
    >>> page.count("<tr>"), "more moves" in page  # the head, ten moves, the foot
    (12, True)
    """
    r = result
    solo = r.metric == "lowest"
    decision = {"place": "place", "play": "play a card"}.get(r.phase, "decide the swap")
    mode = (
        f"adaptive, {r.min_playouts:,} to {r.playouts:,} playouts a move"
        if r.adaptive
        else f"{r.playouts:,} playouts a move"
    )
    caption = (
        f"Position analysis: seat {r.seat} to {decision}, rules {r.rules}; policy "
        f"{', '.join(r.policy)}, {r.view} view, {mode}"
    )
    if solo:
        head = ["rank", "move", "playouts", "result", "95% interval", "points"]
    else:
        head = [
            "rank",
            "move",
            "playouts",
            "win rate",
            "95% interval",
            "mean rank",
            "lowest",
            "95% interval",
            "points",
        ]
    body = []
    for i, row in enumerate(r.rows[: max(int(rows), 0)]):
        low = f"[{_num(row['lowest_lo'])}, {_num(row['lowest_hi'])}]"
        if solo:
            values = [_num(row["lowest"]), low]
        else:
            values = [
                _pct(row["win_rate"]),
                f"[{_pct(row['win_lo'])}, {_pct(row['win_hi'])}]",
                _num(row["rank"]),
                _num(row["lowest"]),
                low,
            ]
        body.append(
            [str(i + 1), str(row["move"]), f"{row['playouts']:,}", *values, str(row["points"])]
        )
    more = len(r.rows) - len(body)
    foot = (f"… {more:,} more moves; " if more > 0 else "") + (
        f"{r.total_playouts:,} playouts; 95% intervals (Wilson for win rates); points: what the "
        "move scores now"
    )
    if r.seconds:
        foot += f"; {r.total_playouts / r.seconds:,.0f} playouts/s"
    return _table(caption, head, body, foot, left=(0, 1))


def arena_html(result: ArenaResult) -> str:
    """An arena (``genial.arena``): the Elo ratings with their 95% bootstrap intervals, best
    first (an interval the data did not measure, one of zero width or a bound set by the prior,
    is marked and explained in the foot, as ``str`` explains it), then each policy's score
    against each other one with its 95% Wilson interval.

    >>> from genial.arena import arena
    >>> page = arena_html(arena(["random", "greedy"], games=20, seed=1, workers=1))
    >>> page.count("<table"), "elo" in page
    (2, True)
    """
    r = result
    caption = (
        f"Arena: rules {r.rules}, {r.deals:,} duplicate deals, {r.games:,} games; Elo anchored "
        f"at {r.anchor}"
    )
    marks, notes = r.interval_notes(digits=0)
    head = ["policy", "elo", "95% interval", "score", "first", "lowest"]
    body = []
    for row in r.ratings():
        prefix, mark = marks.get(r.policies.index(row["policy"]), ("", ""))
        name = str(row["policy"]) + (" (anchor)" if row["policy"] == r.anchor else "")
        body.append(
            [
                name,
                prefix + _num(row["elo"], 0),
                f"[{_num(row['elo_lo'], 0)}, {_num(row['elo_hi'], 0)}]{mark}",
                _pct(row["score"]),
                _pct(row["first_rate"]),
                _num(row["lowest"]),
            ]
        )
    foot = (
        "Bradley-Terry ratings, 400 log10 scale; intervals: bootstrap over deals; score: share "
        "of the points against all others (a tie half a point)"
    )
    if r.anchor in r.policies:
        foot += f"; {r.anchor}: the anchor, rated 0 by definition"
    symbols = sorted({m for _, m in marks.values()}, key="†‡".index)
    for symbol, note in zip(symbols, notes, strict=True):
        foot += f". {symbol} {note}"
    ratings = _table(caption, head, body, foot)
    names = list(r.policies)
    cells = []
    for i, a in enumerate(names):
        line = [a]
        for j in range(len(names)):
            if i == j or not r.meetings[i, j]:
                line.append("–")
            else:
                line.append(
                    f"{_pct(float(r.score[i, j]))} [{_pct(float(r.score_lo[i, j]))}, "
                    f"{_pct(float(r.score_hi[i, j]))}]"
                )
        cells.append(line)
    matrix = _table(
        "Score of the row against the column",
        ["", *names],
        cells,
        "95% Wilson intervals over the games the two met in",
    )
    return ratings + matrix
