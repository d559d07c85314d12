"""Rule tests for wrong input: every error is the ValueError subclass the API documents, and the
game is unchanged afterwards (to_text() identical).  RULES §1.3, §1.4, §3.2 and the notation of
the API (moves, position text, record)."""

import copy

import pytest

import genial

from .rules import positions as helpers

h = helpers
R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters of RULES §1.4)


def test_error_classes_are_value_errors():
    """RULES §3 (wrong input to the base game), spec Errors: all three subclass ValueError."""
    for cls in (genial.IllegalMoveError, genial.PositionError, genial.RecordError):
        assert issubclass(cls, ValueError)


@pytest.mark.parametrize("players", [0, 5, 6])
def test_bad_player_count(players):
    """RULES §3 (2-4 players), spec: Game(players) outside 2..4 raises ValueError."""
    with pytest.raises(ValueError):  # noqa: PT011 (the API promises a ValueError here)
        genial.Game(players)
    with pytest.raises(ValueError):  # noqa: PT011 (the API promises a ValueError here)
        genial.Game(players=players, seed=1)


# ---------------------------------------------------------------------------------------------
# illegal and malformed moves
# ---------------------------------------------------------------------------------------------


def _mid_game():
    """2 players after the first round; (0,0) R and (1,0) B covered; player 0 holds RB, GG."""
    return h.game(covered={(0, 0): R, (1, 0): B}, racks=[["RB", "GG"], ["OO"]], bag={"YY": 5})


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Y2,2+Y3,2", "RULES §3.2: tile YY not in the rack"),
        ("R2,2+G3,2", "RULES §3.2: tile RG not in the rack"),
        ("R2,2+B4,2", "RULES §3.2: cells not adjacent"),
        ("R2,2+B3,3", "RULES §3.2: cells not adjacent ((1,1) is not a direction)"),
        ("R2,2+B2,2", "RULES §3.2: the same cell twice"),
        ("R5,-2+B6,-2", "RULES §1.3: (6,-2) outside the 2-player area"),
        ("R0,0+B0,1", "RULES §3.2: (0,0) is occupied"),
        ("R-1,0+B0,0", "RULES §3.2: (0,0) is occupied"),
        ("R0,-5+B0,-4", "RULES §1.4: (0,-5) is the printed red symbol"),
        ("B5,-1+R5,0", "RULES §1.4: (5,0) is the printed blue symbol"),
        ("keep", "spec turn flow: keep only in phase swap"),
        ("swap", "spec turn flow: swap only in phase swap"),
    ],
)
def test_illegal_move(text, why):
    """RULES §1.3, §1.4, §3.2, spec Errors: IllegalMoveError, game unchanged."""
    g = _mid_game()
    before = g.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g.play(text)
    assert g.to_text() == before, why


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "R2,2",
        "R2,2+",
        "+B3,2",
        "R2,2+B3,2+G4,2",
        "X2,2+B3,2",
        "R2;2+B3,2",
        "R2,2-B3,2",
        "R2,2+B3",
        "RB2,2+B3,2",
        "R2.0,2+B3,2",
        "Ra,2+B3,2",
        "swapkeep",
        "place",
        "R99999999999999999999,2+B3,2",
    ],
)
def test_malformed_move_text(text):
    """RULES §3.2 (a move is a placement of a tile on two cells, or the §3.5 decision), spec
    Moves/Errors: malformed move text raises IllegalMoveError, in play() and parse()."""
    g = _mid_game()
    before = g.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g.play(text)
    assert g.to_text() == before
    with pytest.raises(genial.IllegalMoveError):
        genial.Move.parse(text)


def test_both_orientations_are_legal():
    """RULES §3.2 ("in either orientation"): RB can go R-left or B-left."""
    g = _mid_game()
    legal = g.legal_moves()
    assert genial.Move.parse("R2,2+B3,2") in legal
    assert genial.Move.parse("B2,2+R3,2") in legal
    g.copy().play("R2,2+B3,2")
    g.copy().play("B2,2+R3,2")


def test_first_round_rule_error():
    """RULES §3.2: player 1's first placement may not touch R, which player 0 touched."""
    g = h.game(
        covered={(0, -4): R, (1, -4): B},
        racks=[["GO"], ["RG"]],
        to_move=1,
        first="R-",
        turn=2,
        bag={"YY": 4},
    )
    before = g.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g.play("R1,-5+G2,-5")
    assert g.to_text() == before
    with pytest.raises(genial.IllegalMoveError):
        g.play("R1,1+G2,1")  # touches no symbol at all
    assert g.to_text() == before


@pytest.mark.parametrize("text", ["B0,0+R1,0", "R5,-2+B6,-2", "R0,-5+B0,-4", "R2,2+B4,2"])
def test_gains_rejects_bad_cells(text):
    """RULES §1.3, §1.4, §3.2, spec gains: raises (a ValueError) for cells not empty / not
    adjacent / not in the area."""
    g = _mid_game()
    before = g.to_text()
    with pytest.raises(ValueError):  # noqa: PT011 (the API promises a ValueError here)
        g.gains(genial.Move.parse(text))  # parse may already refuse (2,2)+(4,2)
    assert g.to_text() == before


@pytest.mark.parametrize("move", [genial.Move.swap, genial.Move.keep])
def test_gains_rejects_non_placements(move):
    """RULES §3.3 (only placements score), spec gains: raises for a non-placement."""
    g = _mid_game()
    with pytest.raises(ValueError):  # noqa: PT011 (the API promises a ValueError here)
        g.gains(move())


def test_move_after_the_end():
    """RULES §3.6, spec: any move when the game is over raises IllegalMoveError.  The position
    is built over: all six counters of player 0 at 18 is not needed - a full board is enough:
    every free cell covered, phase x."""
    covered = {c: O + (c[0] - c[1]) % 3 for c in h.area_cells(2) if c not in h.PRINTED}
    g = h.game(covered=covered, racks=[["RG"], ["OO"]], phase="x")
    assert g.is_over
    assert g.legal_moves() == []
    before = g.to_text()
    for move in ("keep", "swap", "R0,0+G1,0", genial.Move.swap()):
        with pytest.raises(genial.IllegalMoveError):
            g.play(move)
        assert g.to_text() == before


# ---------------------------------------------------------------------------------------------
# position texts
# ---------------------------------------------------------------------------------------------

BASE = dict(
    covered={(0, 0): R, (1, 0): B},
    racks=[["RB", "GG"], ["OO"]],
    bag={"YY": 5},
    scores=[[1, 2, 3, 4, 5, 6], [0, 0, 0, 0, 0, 18]],
)


def _fields(**kw):
    args = dict(BASE)
    args.update(kw)
    return h.position(**args).split(" ")


def _with(index, value):
    f = _fields()
    f[index] = value
    return " ".join(f)


def _board_with(cell, ch, players=2):
    f = _fields()
    rows = f[h.F_BOARD].split("/")
    rad = h.RADIUS[players]
    q, r = cell
    row = list(rows[r + rad])
    row[q - max(-rad, -rad - r)] = ch
    rows[r + rad] = "".join(row)
    f[h.F_BOARD] = "/".join(rows)
    return " ".join(f)


def test_base_position_is_valid():
    """RULES §2.1 (full material allowed), spec position text: the base text of the
    position-error tests parses and round-trips."""
    text = h.position(**BASE)
    g = genial.Game.from_text(text)
    assert genial.Game.from_text(g.to_text()).to_text() == g.to_text()
    assert g.board == {(0, 0): R, (1, 0): B}
    assert h.scores(g) == [[1, 2, 3, 4, 5, 6], [0, 0, 0, 0, 0, 18]]
    # full material is allowed: the standard bag holds exactly 40 halves of each colour
    genial.Game.from_text(h.position(bag=h.FULL_BAG))


def _bad_texts():
    base = h.position(**BASE)
    f = base.split(" ")
    rows = f[h.F_BOARD].split("/")
    yield "empty text", ""
    yield "9 fields", " ".join(f[:9])
    yield "11 fields", base + " 0"
    yield "rules 5", _with(h.F_RULES, "5")
    yield "rules x", _with(h.F_RULES, "x")
    yield "bad board letter", _board_with((2, 2), "X")
    yield "digit on board", _board_with((2, 2), "1")
    yield "short row", _with(h.F_BOARD, "/".join([rows[0][:-1], *rows[1:]]))
    yield "long row", _with(h.F_BOARD, "/".join([*rows[:5], rows[5] + "-", *rows[6:]]))
    yield "missing row", _with(h.F_BOARD, "/".join(rows[:-1]))
    yield "extra row", _with(h.F_BOARD, "/".join([*rows, rows[-1]]))
    yield "3-player board for 2 players", _with(h.F_BOARD, h.position(players=3).split(" ")[1])
    yield "printed red shown empty", _board_with((0, -5), "-")
    yield "printed red shown blue", _board_with((0, -5), "B")
    yield "printed purple shown red", _board_with((-5, 0), "R")
    yield "score 19", _with(h.F_SCORES, "1,2,3,4,5,19/0,0,0,0,0,18")
    yield "score -1", _with(h.F_SCORES, "1,2,3,4,5,-1/0,0,0,0,0,18")
    yield "five scores", _with(h.F_SCORES, "1,2,3,4,5/0,0,0,0,0,18")
    yield "one player's scores", _with(h.F_SCORES, "1,2,3,4,5,6")
    yield "three players' scores", _with(h.F_SCORES, "1,2,3,4,5,6/0,0,0,0,0,0/0,0,0,0,0,0")
    yield "score letter", _with(h.F_SCORES, "1,2,3,4,5,a/0,0,0,0,0,18")
    yield "rack of 7", _with(h.F_RACKS, "RRRRRRRRRRRRRR/OO")
    yield "rack bad letter", _with(h.F_RACKS, "RBGX/OO")
    yield "rack odd length", _with(h.F_RACKS, "RBG/OO")
    yield "one rack", _with(h.F_RACKS, "RBGG")
    yield "bag 20 digits", _with(h.F_BAG, "0" * 20)
    yield "bag 22 digits", _with(h.F_BAG, "0" * 22)
    yield "bag letter", _with(h.F_BAG, "0" * 20 + "x")
    yield "to-move 2", _with(h.F_TO_MOVE, "2")
    yield "to-move -1", _with(h.F_TO_MOVE, "-1")
    yield "phase q", _with(h.F_PHASE, "q")
    yield "bonus x", _with(h.F_BONUS, "x")
    yield "bonus -1", _with(h.F_BONUS, "-1")
    yield "first-round too short", _with(h.F_FIRST, "R")
    yield "first-round bad letter", _with(h.F_FIRST, "RX")
    yield "turn x", _with(h.F_TURN, "x")
    # RULES §2.1: 40 halves of each colour.  Full bag (40 red) + 1 red half on the board = 41.
    yield "41 red halves", h.position(covered={(2, 2): R}, bag=h.FULL_BAG)
    # full bag + RR in a rack: 42 red halves
    yield "42 red halves", h.position(racks=[["RR"], []], bag=h.FULL_BAG)
    # 41 yellow halves on the board (the first 41 free cells in row-major order), no bag
    yield (
        "41 yellow halves on the board",
        h.position(covered={c: Y for c in [d for d in h.area_cells(2) if d not in h.PRINTED][:41]}),
    )


@pytest.mark.parametrize(("name", "text"), list(_bad_texts()), ids=[n for n, _ in _bad_texts()])
def test_bad_position_text(name, text):
    """RULES §1.3 (area rows), §1.4 (printed cells), §2.1 (40 halves per colour), §2.3 (racks
    of at most 6), §3.3 (counters 0..18), spec position text: PositionError."""
    with pytest.raises(genial.PositionError):
        genial.Game.from_text(text)


# ---------------------------------------------------------------------------------------------
# records
# ---------------------------------------------------------------------------------------------


def _record():
    g = genial.Game(2, seed=7)
    g.play(g.legal_moves()[0])
    if g.phase == "swap":
        g.play("keep")
    return g.to_record()


def test_record_round_trip():
    """RULES §2.3, §3.2 (draws after each move), spec Record: the base record of the
    record-error tests replays to the same position."""
    g = genial.Game(2, seed=7)
    g.play(g.legal_moves()[0])
    if g.phase == "swap":
        g.play("keep")
    rec = g.to_record()
    assert rec["format"] == "genial-record" and rec["version"] == 1
    assert genial.Game.from_record(copy.deepcopy(rec)).to_text() == g.to_text()


def _bad_records():
    rec = _record()

    def changed(**kw):
        r = copy.deepcopy(rec)
        for k, v in kw.items():
            if v is None:
                del r[k]
            else:
                r[k] = v
        return r

    yield "not a dict", "genial-record"
    yield "list", [rec]
    yield "empty dict", {}
    yield "wrong format", changed(format="chess-pgn")
    yield "no format", changed(format=None)
    yield "wrong version", changed(version=99)
    yield "no version", changed(version=None)
    yield "no start", changed(start=None)
    yield "no moves", changed(moves=None)
    yield "moves not a list", changed(moves="R0,-4+B1,-4")
    moves = copy.deepcopy(rec["moves"])
    moves[0] = {"draws": moves[0]["draws"]}
    yield "move entry without move", changed(moves=moves)
    moves = copy.deepcopy(rec["moves"])
    moves[0]["move"] = "garbage"
    yield "malformed move text", changed(moves=moves)
    moves = copy.deepcopy(rec["moves"])
    moves[0]["draws"] = ["ZZ"]
    yield "malformed draw", changed(moves=moves)
    moves = copy.deepcopy(rec["moves"])
    moves[0]["draws"] = "RG"
    yield "draws not a list", changed(moves=moves)


@pytest.mark.parametrize(("name", "rec"), list(_bad_records()), ids=[n for n, _ in _bad_records()])
def test_bad_record(name, rec):
    """RULES §3.2 (moves and draws of a game), spec Record: malformed records raise RecordError."""
    with pytest.raises(genial.RecordError):
        genial.Game.from_record(rec)


def test_record_with_an_illegal_move():
    """Spec, Record/Errors: a record whose first move breaks the first-round rule (RULES §3.2:
    (0,0)+(1,0) touches no symbol) is rejected with a ValueError (RecordError or
    IllegalMoveError: the API does not say which)."""
    rec = copy.deepcopy(_record())
    lo, hi = genial.Game.from_text(rec["start"]).rack(0)[0]
    rec["moves"] = [{"move": f"{h.LETTERS[lo]}0,0+{h.LETTERS[hi]}1,0", "draws": []}]
    with pytest.raises(ValueError):  # noqa: PT011 (the API promises a ValueError here)
        genial.Game.from_record(rec)
