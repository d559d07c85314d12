"""The replay page in a real headless browser (Debian's Chromium, driven by Playwright): it loads
with no console error and no network request, the buttons, keys and move list step through the
game, the board and the scores follow the record, and screenshots are taken.

Skipped, saying why, when Playwright or a Chromium binary is missing (CI installs both)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api  # a test extra: its absence is a failure, not a skip

from genial import Game
from genial.cards import CardGame
from genial.render.html import replay_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# CI installs chromium (.ci/run), so there a missing browser fails the run instead of skipping
pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="no chromium binary on PATH (apt-get install chromium)",
)


def finished(game: Any) -> Any:
    while not game.is_over:
        game.play(game.choose("greedy"))
    return game


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        chromium.close()


class Page:
    """A page on a replay file, recording console errors, page errors and every request."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = path.as_uri()
        self.page.goto(self.url)

    def counter(self) -> str:
        return str(self.page.inner_text("#counter"))

    def board(self) -> str:
        return str(self.page.inner_html("#picture svg"))

    def visible_tiles(self) -> int:
        return int(
            self.page.evaluate(
                "Array.from(document.querySelectorAll('#picture g.tile'))"
                ".filter(g => g.getAttribute('display') !== 'none').length"
            )
        )

    def scores(self) -> list[list[int]]:
        rows = self.page.evaluate(
            "Array.from(document.querySelectorAll('table.scores tbody tr')).map(tr =>"
            " Array.from(tr.querySelectorAll('td')).slice(0, 6).map(td => +td.textContent))"
        )
        return [[int(v) for v in row] for row in rows]


def scores_at(record: dict[str, Any], step: int, cls: Any) -> list[list[int]]:
    """The counters after ``step`` moves of the record, by the library."""
    game = cls.from_record(record)
    for _ in range(len(game.moves) - step):
        game.undo()
    return [[int(v) for v in row] for row in game.scores]


def test_board_replay_steps_through_the_game(browser: Any, tmp_path: Path) -> None:
    game = finished(Game(4, seed=21))
    record = game.to_record()
    n = len(game.moves)
    placements = [i for i, m in enumerate(game.moves) if m.cells is not None]
    path = tmp_path / "board.html"
    path.write_text(replay_html(record), encoding="utf-8")
    view = Page(browser, path)
    page = view.page
    assert view.counter() == f"move 0 / {n}"
    assert view.visible_tiles() == 0 and view.scores() == [[0] * 6] * 4
    page.screenshot(path=str(tmp_path / "board-start.png"))
    before = view.board()
    page.keyboard.press("ArrowRight")
    assert view.counter() == f"move 1 / {n}"
    assert view.board() != before and view.visible_tiles() == 1
    assert view.scores() == scores_at(record, 1, Game)
    page.click("#next")
    page.click("#next")
    assert view.counter() == f"move 3 / {n}"
    assert view.visible_tiles() == sum(1 for i in placements if i < 3)
    page.click("#prev")
    assert view.counter() == f"move 2 / {n}"
    page.keyboard.press("End")
    assert view.counter() == f"move {n} / {n}"
    assert view.visible_tiles() == len(placements) == len(game.board) // 2
    assert view.scores() == game.scores.tolist()
    assert "game over" in page.inner_text("#status")
    page.screenshot(path=str(tmp_path / "board-end.png"))
    page.keyboard.press("Home")
    assert view.counter() == f"move 0 / {n}" and view.visible_tiles() == 0
    page.click("#moves li[data-step='10']")  # the move list jumps
    assert view.counter() == f"move 10 / {n}"
    assert view.scores() == scores_at(record, 10, Game)
    assert page.locator("#moves li.current").get_attribute("data-step") == "10"
    marks = page.evaluate(
        "Array.from(document.querySelectorAll('#picture g.last-move'))"
        ".filter(g => g.getAttribute('display') !== 'none').length"
    )
    assert marks == 1  # one last-move mark at a time
    page.goto(view.url + "#25")
    assert view.counter() == f"move 25 / {n}"
    assert view.errors == [] and view.requests == [view.url]  # nothing but the page itself
    start, end = (
        (tmp_path / "board-start.png").read_bytes(),
        (tmp_path / "board-end.png").read_bytes(),
    )
    assert start[:8] == b"\x89PNG\r\n\x1a\n" and start != end


def test_card_replay_steps_through_the_game(browser: Any, tmp_path: Path) -> None:
    game = finished(CardGame(3, seed=21))
    record = game.to_record()
    n = len(game.moves)
    path = tmp_path / "cards.html"
    path.write_text(replay_html(record), encoding="utf-8")
    view = Page(browser, path)
    page = view.page
    assert view.counter() == f"move 0 / {n}"
    hand = page.evaluate(
        "Array.from(document.querySelectorAll('g.panel[data-player=\"0\"] use.hand'))"
        ".map(g => g.getAttribute('data-card')).sort()"
    )
    start = CardGame.from_text(record["start"])
    assert hand == sorted(a + b for a, b in (("RGBOYP"[x], "RGBOYP"[y]) for x, y in start.hand(0)))
    before = view.board()
    page.keyboard.press("ArrowRight")
    assert view.counter() == f"move 1 / {n}" and view.board() != before
    assert view.scores() == scores_at(record, 1, CardGame)
    page.keyboard.press("PageDown")
    assert view.counter() == f"move 11 / {n}"
    assert view.scores() == scores_at(record, 11, CardGame)
    page.screenshot(path=str(tmp_path / "cards-11.png"))
    page.keyboard.press("End")
    assert view.scores() == game.scores.tolist()
    assert "game over" in page.inner_text("#status")
    page.click("#first")
    assert view.counter() == f"move 0 / {n}"
    assert view.errors == [] and view.requests == [view.url]
    assert (tmp_path / "cards-11.png").stat().st_size > 10_000


def test_play_button_runs_and_stops(browser: Any, tmp_path: Path) -> None:
    game = Game(2, seed=2)
    for _ in range(3):
        game.play(game.choose("greedy"))
    path = tmp_path / "short.html"
    path.write_text(replay_html(game.to_record()), encoding="utf-8")
    view = Page(browser, path)
    view.page.click("#play")
    view.page.wait_for_function("document.getElementById('counter').textContent === 'move 3 / 3'")
    view.page.wait_for_function("document.getElementById('play').textContent === 'play'")
    assert view.counter() == "move 3 / 3"  # it stopped by itself at the end
    assert view.errors == []


@pytest.mark.usefixtures("toy_game")
def test_a_game_without_a_picture_replays_as_its_texts(browser: Any, tmp_path: Path) -> None:
    """The toy game (``tests/toy``) has no picture of its own: its page shows each position's
    text and one score column a seat, and steps like the others'."""
    from .toy import ToyGame

    game = ToyGame(3, seed=5)
    while not game.is_over:
        game.play(game.choose("greedy"))
    record = game.to_record()
    n = len(game.moves)
    path = tmp_path / "toy.html"
    path.write_text(replay_html(record), encoding="utf-8")
    view = Page(browser, path)
    page = view.page
    assert view.counter() == f"move 0 / {n}" and view.scores() == [[0]] * 3
    assert "seat 0: 0  <- to move" in page.inner_text("#picture")
    page.keyboard.press("End")
    assert view.counter() == f"move {n} / {n}"
    assert view.scores() == [[int(v)] for v in game.scores]
    assert page.inner_text("#picture").count("\n") >= 3 and "wins" in page.inner_text("#status")
    page.keyboard.press("Home")
    page.keyboard.press("PageDown")
    again = ToyGame.from_record(record)
    for _ in range(n - 10):
        again.undo()
    assert view.scores() == [[int(v)] for v in again.scores]
    assert str(again).splitlines()[1] in page.inner_text("#picture")
    assert view.errors == [] and view.requests == [view.url]


# -- the layout: a 1,000 px window shows the controls on one line and the move list (issue 22) --

LAYOUT_GAMES = [(Game, 2, 4), (Game, 4, 7), (CardGame, 3, 4)]
CONTROLS = ("first", "prev", "counter", "next", "last", "play")


@pytest.mark.parametrize("size", [(1000, 700), (1280, 800)])
@pytest.mark.parametrize(("cls", "players", "seed"), LAYOUT_GAMES)
def test_the_controls_and_the_move_list_fit_the_window(
    browser: Any, tmp_path: Path, cls: Any, players: int, seed: int, size: tuple[int, int]
) -> None:
    width, height = size
    path = tmp_path / "replay.html"
    path.write_text(replay_html(finished(cls(players, seed=seed)).to_record()), encoding="utf-8")
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(path.as_uri())
        boxes = {name: page.locator(f"#{name}").bounding_box() for name in CONTROLS}
        tops = [boxes[name]["y"] for name in CONTROLS]
        assert max(tops) - min(tops) < 4, boxes  # one line: play does not wrap
        lefts = [boxes[name]["x"] for name in CONTROLS]
        assert lefts == sorted(lefts), boxes
        assert all(b["x"] + b["width"] <= width for b in boxes.values()), boxes
        moves = page.locator("#moves").bounding_box()
        assert moves["y"] < height - 100, moves  # the move list starts in the first screen
        picture = page.locator("#picture svg").bounding_box()
        assert picture["x"] + picture["width"] <= boxes["first"]["x"]  # side by side
        assert picture["y"] + picture["height"] <= height  # scaled to fit the window
        assert "wins" not in page.inner_text("body")  # and no spoiler at move 0
        page.keyboard.press("End")
        assert "game over" in page.inner_text("#status")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        page.close()


def test_a_narrow_window_stacks_the_picture_and_the_controls(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "replay.html"
    path.write_text(replay_html(finished(CardGame(2, seed=5)).to_record()), encoding="utf-8")
    page = browser.new_page(viewport={"width": 600, "height": 900})
    try:
        page.goto(path.as_uri())
        picture = page.locator("#picture svg").bounding_box()
        tops = [page.locator(f"#{name}").bounding_box()["y"] for name in CONTROLS]
        assert max(tops) - min(tops) < 4 and min(tops) > picture["y"] + picture["height"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 600
    finally:
        page.close()
