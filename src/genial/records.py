"""Game records, the same shape for every game: the start position text, then every move's text
with the items (tiles, cards) drawn right after it.

A ``RecordFormat`` writes and checks one game's records; the game supplies its format name and
how an item is written and read. Whether the moves are legal is for the replay to check.

>>> fmt = RecordFormat("demo-record", 1, "demo record", "chip", 2, str, int)
>>> record = fmt.make("start", [("a", [1, 2])])
>>> record["format"], record["moves"]
('demo-record', [{'move': 'a', 'draws': ['1', '2']}])
>>> fmt.read(record)
('start', [('a', [1, 2])])
>>> fmt.read({**record, "version": 2})
Traceback (most recent call last):
...
genial.errors.RecordError: unsupported record version 2
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy.typing as npt

from .errors import GenialError, RecordError, excerpt

__all__ = ["RecordFormat"]


@dataclass(frozen=True)
class RecordFormat:
    """One game's record format.

    ``name`` and ``version`` are written in every record, ``title`` names the format in errors
    ("genial record"); ``item`` names what is drawn ("tile",
    "card"); at most ``max_draws`` items follow one move; ``item_text(id)`` writes an item and
    ``item_id(text)`` reads one back (raising ``ValueError`` on a malformed one).
    """

    name: str
    version: int
    title: str
    item: str
    max_draws: int
    item_text: Callable[[int], str]
    item_id: Callable[[Any], int]

    def make(self, start: str, moves: Sequence[tuple[str, Sequence[int]]]) -> dict[str, Any]:
        """A JSON-serialisable record of a game from ``start`` through ``moves``."""
        return {
            "format": self.name,
            "version": self.version,
            "start": start,
            "moves": [
                {"move": text, "draws": [self.item_text(i) for i in draws]} for text, draws in moves
            ],
        }

    def read(self, record: object) -> tuple[str, list[tuple[str, list[int]]]]:
        """The start text and the ``(move text, drawn item ids)`` of a record; ``RecordError``
        says what is malformed, in time linear in the record's size."""
        if not isinstance(record, Mapping):
            raise RecordError(f"a record is a dict, got {type(record).__name__}")
        if record.get("format") != self.name:
            raise RecordError(
                f"not a {self.title}: format is {excerpt(record.get('format'))}, "
                f"expected {self.name!r}"
            )
        version = record.get("version")
        if type(version) is not int or version != self.version:
            raise RecordError(f"unsupported record version {excerpt(version)}")
        start, moves = record.get("start"), record.get("moves")
        if not isinstance(start, str):
            raise RecordError("the record has no 'start' position text")
        if not isinstance(moves, list):
            raise RecordError("the record's 'moves' is not a list")
        out = []
        for i, entry in enumerate(moves):
            if (
                not isinstance(entry, Mapping)
                or not isinstance(entry.get("move"), str)
                or not isinstance(entry.get("draws"), list)
                or len(entry["draws"]) > self.max_draws
            ):
                raise RecordError(
                    f"move {i}: expected {{'move': str, 'draws': [{self.item}, ...]}} (at most "
                    f"{self.max_draws} {self.item}s), got {excerpt(entry)}"
                )
            try:
                draws = [self.item_id(t) for t in entry["draws"]]
            except ValueError as exc:
                raise RecordError(f"move {i} ({excerpt(entry['move'])}): {exc}") from None
            out.append((entry["move"], draws))
        return start, out

    def from_logs(
        self,
        logs: npt.NDArray[Any],
        move_text: Callable[[int], str],
        *,
        start: str | None,
        core: Any,
        dealt: int,
        text: Callable[[Any], str],
    ) -> list[dict[str, Any]]:
        """The records of a batch's games from the kernel's logs (fields ``moves``, ``counts``,
        ``n_moves``, ``draws``, ``n_draws``, ``overflow``). Games from a ``start`` text begin
        there; otherwise a copy of ``core`` is dealt the first ``dealt`` draws and ``text`` of
        it is the start. ``move_text(action)`` writes a move."""
        out = []
        for log in logs:
            if log["overflow"]:
                raise GenialError("a game's log overflowed: its record is incomplete")
            draws = log["draws"][: log["n_draws"]].tolist()
            if start is None:
                begin = core.copy()
                begin.deal(None, draws[:dealt])
                start_text, pos = text(begin), dealt
            else:
                start_text, pos = start, 0
            moves = []
            n = int(log["n_moves"])
            for action, count in zip(
                log["moves"][:n].tolist(), log["counts"][:n].tolist(), strict=True
            ):
                moves.append((move_text(action), draws[pos : pos + count]))
                pos += count
            out.append(self.make(start_text, moves))
        return out
