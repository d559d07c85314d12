"""Positions as data and as text: the ``genial.Position`` builder, its round trips through the
text and the kernel, and ``genial.board.notation.load`` refusing impossible positions
(RULES §1-§4)."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genial import EDGES, SYMBOLS, Game, Move, Position, PositionError, RecordError, Rules
from genial.board.geometry import area
from genial.board.moves import TILES, tile_id
from genial.board.notation import NO_SYMBOL, load, max_matching

TOKENS = ("1", "1v", "2", "2v", "2T", "2Tv", "3", "4", "4t")
Tile = tuple[int, int]


def _distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def _dealt(rules: Rules, racks: tuple[tuple[Tile, ...], ...]) -> Position:
    """An empty board with ``racks`` dealt from the bag (the bag keeps the rest)."""
    bag = list(rules.tile_counts)
    for rack in racks:
        for tile in rack:
            bag[tile_id(tile)] -= 1
    return Position.empty(rules).replace(racks=racks, bag=tuple(bag))


def _standard_racks(players: int) -> tuple[tuple[Tile, ...], ...]:
    pool = [(0, 0), (0, 2), (1, 4), (1, 5), (3, 3), (4, 5), (2, 3), (0, 5)]
    return tuple(tuple(sorted(pool[(p + i) % len(pool)] for i in range(6))) for p in range(players))


def _placed(position: Position, move: Move, seat: int | None = None) -> Position:
    """``position.place(move, seat)`` with the tile taken out of the bag."""
    assert move.tile is not None
    bag = list(position.bag)
    bag[tile_id(move.tile)] -= 1
    return position.place(move, seat=seat).replace(bag=tuple(bag))


def _mid_game(rules: str, seed: int, moves: int) -> Game:
    game = Game(rules, seed=seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.play(game.choose("random"))
    return game


# -- Position.empty --------------------------------------------------------------------------------


@pytest.mark.parametrize("token", TOKENS)
def test_empty_position_of_every_rules(token: str) -> None:
    """RULES §2.1, §2.2: every tile in the bag; §3.1: nobody dealt, seat 0 to move."""
    rules = Rules.parse(token)
    pos = Position.empty(rules)
    n = rules.players
    assert pos.rules == rules
    assert dict(pos.board) == {}
    assert pos.scores == ((0,) * 6,) * n
    assert pos.racks == ((),) * n
    assert pos.bag == tuple(rules.tile_counts)
    assert sum(pos.bag) == (57 if rules.tiles == "travel" else 120)
    assert pos.first == (None,) * n
    assert (pos.to_move, pos.phase, pos.bonus, pos.turn) == (0, "place", 0, 1)
    fields = pos.to_text().split()
    assert len(fields) == 10
    assert fields[0] == token
    rows = fields[1].split("/")
    radius = rules.radius
    assert len(rows) == 2 * radius + 1
    assert [len(r) for r in rows] == [2 * radius + 1 - abs(r) for r in range(-radius, radius + 1)]
    assert sum(ch != "-" for ch in fields[1] if ch != "/") == 6  # the printed symbols (§1.4)
    assert fields[3] == "/".join(["-"] * n)
    assert fields[8] == "-" * n
    assert Position.parse(pos.to_text()) == pos


@pytest.mark.parametrize("token", TOKENS)
def test_an_empty_position_is_a_finished_game_only_when_it_says_so(token: str) -> None:
    """RULES §3.6: with every rack empty the game is over, so the phase must be 'x'."""
    pos = Position.empty(Rules.parse(token))
    with pytest.raises(PositionError, match="every rack is empty"):
        load(pos)
    game = Game.from_position(pos.replace(phase="over"))
    assert game.is_over
    assert game.legal_moves() == []


@pytest.mark.parametrize("token", TOKENS)
def test_dealt_position_loads_and_plays(token: str) -> None:
    rules = Rules.parse(token)
    racks = tuple(rack[: rules.rack_size] for rack in _standard_racks(rules.players))
    pos = _dealt(rules, racks)
    game = Game.from_position(pos, seed=1)
    assert game.position == pos
    assert game.to_text() == pos.to_text()
    assert [game.rack(p) for p in range(rules.players)] == [sorted(r) for r in racks]
    moves = game.legal_moves()
    assert moves
    for move in moves:  # RULES §3.2: the first placement touches a printed symbol
        assert move.cells is not None and move.tile in racks[0]
        assert any(_distance(c, s) == 1 for c in move.cells for s in SYMBOLS)
    game.play(moves[0])
    assert game.to_record()["start"] == pos.to_text()


# -- replace and place -----------------------------------------------------------------------------


def test_replace_makes_a_changed_copy() -> None:
    pos = Position.empty(Rules(3))
    later = pos.replace(to_move=2, turn=9, bonus=1)
    assert (later.to_move, later.turn, later.bonus) == (2, 9, 1)
    assert (pos.to_move, pos.turn, pos.bonus) == (0, 1, 0)
    assert later.rules == pos.rules and later.bag == pos.bag
    assert later != pos
    assert later.replace(to_move=0, turn=1, bonus=0) == pos
    with pytest.raises(TypeError):
        pos.replace(colour=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        pos.turn = 5  # type: ignore[misc]


def test_place_puts_both_halves_on_the_board() -> None:
    pos = Position.empty(Rules(2))
    move = Move.parse("B1,-4+R0,-4")
    placed = pos.place(move)
    assert dict(placed.board) == {(0, -4): 0, (1, -4): 2}
    assert placed.first == pos.first
    assert dict(pos.board) == {}  # the original is unchanged
    again = placed.place(Move.parse("G0,0+G1,0"))
    assert dict(again.board) == {(0, -4): 0, (1, -4): 2, (0, 0): 1, (1, 0): 1}
    assert dict(placed.board) == {(0, -4): 0, (1, -4): 2}
    assert again.to_text().split()[1] != placed.to_text().split()[1]
    assert Position.parse(again.to_text()).board == again.board


@pytest.mark.parametrize("colour", range(6))
def test_place_with_a_seat_records_the_symbol_it_touches(colour: int) -> None:
    """RULES §3.2: "touch" means a cell of the tile is next to the printed cell."""
    symbol = SYMBOLS[colour]
    inside = set(area(5))
    move = next(
        Move.place((a, b), (colour, colour))
        for a, b in EDGES
        if a in inside and b in inside and _distance(a, symbol) == 1
    )
    pos = Position.empty(Rules(2)).place(move, seat=1)
    assert pos.first == (None, colour)
    assert pos.to_text().split()[8] == "-" + "RGBOYP"[colour]


def test_place_with_a_seat_touching_no_symbol() -> None:
    pos = Position.empty(Rules(2)).place(Move.parse("R0,0+G1,0"), seat=0)
    assert pos.first == (NO_SYMBOL, None)
    tournament = Position.empty(Rules(2, tournament=True)).place(Move.parse("R0,0+G1,0"), seat=0)
    assert tournament.to_text().split()[8] == "+-"
    assert Position.parse(tournament.to_text()) == tournament


@pytest.mark.parametrize("move", [Move.swap(), Move.keep()])
def test_place_refuses_a_decision(move: Move) -> None:
    with pytest.raises(PositionError):
        Position.empty(Rules(2)).place(move)


def test_a_built_position_plays_by_the_first_round_rule() -> None:
    """RULES §3.2: seat 1's first placement must touch a symbol seat 0's did not."""
    rules = Rules(2)
    pos = _placed(_dealt(rules, _standard_racks(2)), Move.parse("R1,-5+R0,-4"), seat=0)
    rack0 = list(pos.racks[0])
    rack0.remove((0, 0))
    pos = pos.replace(racks=(tuple(rack0), pos.racks[1]), to_move=1, turn=2)
    game = Game.from_position(pos, seed=3)
    assert game.position == pos
    assert game.current_player == 1
    moves = game.legal_moves()
    assert moves
    for move in moves:
        assert move.cells is not None
        touched = {s for s in range(6) for c in move.cells if _distance(c, SYMBOLS[s]) == 1}
        assert len(touched) == 1 and 0 not in touched


# -- round trips -----------------------------------------------------------------------------------


@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize("moves", [0, 1, 7, 25, 1000])
def test_positions_round_trip_through_text_and_kernel(token: str, moves: int) -> None:
    game = _mid_game(token, seed=len(token) + moves, moves=moves)
    pos = game.position
    assert Position.parse(pos.to_text()) == pos
    assert pos.to_text() == game.to_text()
    loaded = Game.from_position(pos)
    assert loaded.position == pos
    assert loaded == game
    assert loaded.legal_actions().tolist() == game.legal_actions().tolist()
    assert loaded.scores.tolist() == game.scores.tolist()
    assert loaded.ranks().tolist() == game.ranks().tolist()
    assert loaded.is_over == game.is_over


def test_rack_order_round_trips_through_the_game() -> None:
    """A valid position loads to a game whose position is that position, whatever order its
    racks list their tiles in (a rack is a set of tiles, RULES §2.3)."""
    rules = Rules(2)
    racks = (((4, 5), (0, 0), (1, 2)), ((3, 3), (0, 1)))
    pos = _dealt(rules, racks)
    assert Position.parse(pos.to_text()) == pos
    game = Game.from_position(pos)
    assert game.position == pos
    assert Game.from_text(pos.to_text()).to_text() == pos.to_text()


def test_swap_decision_positions_round_trip() -> None:
    """RULES §3.5: a position waiting for the swap decision reads back as one."""
    seen = 0
    for seed in range(40):
        game = Game(2, seed=seed)
        while not game.is_over and seen < 3:
            if game.phase == "swap":
                pos = game.position
                assert pos.phase == "swap" and pos.to_text().split()[6] == "s"
                assert Position.parse(pos.to_text()) == pos
                loaded = Game.from_position(pos)
                assert loaded.position == pos
                assert {str(m) for m in loaded.legal_moves()} == {"swap", "keep"}
                seen += 1
            game.play(game.choose("greedy"))
    assert seen == 3


def test_a_finished_game_with_six_capped_counters_loads_as_over() -> None:
    """RULES §3.6: six counters at 18 end the game at once; that player wins."""
    pos = _dealt(Rules(2), _standard_racks(2)).replace(
        scores=((18,) * 6, (3, 4, 5, 6, 7, 8)), phase="over"
    )
    game = Game.from_position(pos)
    assert game.is_over
    assert game.winner() == 0
    assert game.position == pos
    with pytest.raises(PositionError, match="over"):
        Game.from_position(pos.replace(phase="place"))


# -- load refuses impossible positions -------------------------------------------------------------


def test_too_many_tiles_of_a_type_over_racks_and_bag() -> None:
    """RULES §2.1: five RR tiles in the set; a rack's RR with a full bag makes six."""
    rules = Rules(2)
    pos = Position.empty(rules).replace(racks=(((0, 0),), ((1, 2),)))
    with pytest.raises(PositionError, match="RR tiles"):
        load(pos)
    with pytest.raises(PositionError, match="RR tiles"):
        Game.from_text(pos.to_text())
    bag = list(pos.bag)
    bag[tile_id((0, 0))] -= 1
    bag[tile_id((1, 2))] -= 1
    assert Game.from_position(pos.replace(bag=tuple(bag))).rack(0) == [(0, 0)]


def test_too_many_tiles_of_a_type_on_the_racks_alone() -> None:
    rules = Rules(2, tiles="travel")  # 2 of each double (RULES §2.2)
    racks = (((0, 0), (0, 0)), ((0, 0), (1, 1)))
    bag = list(rules.tile_counts)
    bag[tile_id((0, 0))] = 0
    bag[tile_id((1, 1))] -= 1
    pos = Position.empty(rules).replace(racks=racks, bag=tuple(bag))
    with pytest.raises(PositionError, match="RR tiles"):
        load(pos)


def test_too_many_halves_of_a_colour_over_board_racks_and_bag() -> None:
    """A tile on the board but still in the bag: 42 red halves of 40."""
    pos = _dealt(Rules(2), _standard_racks(2)).place(Move.parse("R1,-5+R0,-4"), seat=0)
    with pytest.raises(PositionError, match="too much red"):
        load(pos)
    bag = list(pos.bag)
    bag[tile_id((0, 0))] -= 1
    assert load(pos.replace(bag=tuple(bag))) is not None


def test_team_partners_share_their_counters() -> None:
    """RULES §4.2: seats 0 and 2 (and 1 and 3) score on one set of counters, up to 36."""
    rules = Rules(4, teams=True)
    base = _dealt(rules, _standard_racks(4))
    shared = (1, 2, 3, 4, 5, 30)
    good = base.replace(scores=(shared, (0,) * 6, shared, (0,) * 6))
    game = Game.from_position(good)
    assert game.scores[2].tolist() == list(shared)
    assert game.position == good
    for partner in ((1, 2, 3, 4, 5, 29), (0,) * 6, (30, 5, 4, 3, 2, 1)):
        bad = base.replace(scores=(shared, (0,) * 6, partner, (0,) * 6))
        with pytest.raises(PositionError, match="team"):
            load(bad)
        with pytest.raises(PositionError, match="team"):
            Game.from_text(bad.to_text())
    odd = base.replace(scores=((0,) * 6, (0,) * 5 + (1,), (0,) * 6, (0,) * 6))
    with pytest.raises(PositionError, match="team"):
        load(odd)
    # without teams every seat has its own counters
    own = ((1, 2, 3, 4, 5, 17), (0,) * 6, (1, 2, 3, 4, 5, 16), (0,) * 6)
    alone = _dealt(Rules(4), _standard_racks(4)).replace(scores=own)
    assert Game.from_position(alone).scores.tolist() == [list(s) for s in own]


def test_plus_first_round_mark() -> None:
    """RULES §4.3 and the §3.2 Decision: a first placement that touched no symbol ('+') is
    possible under tournament rules, and in the base game where the first-round rule had lapsed
    (no free pair touched an unused symbol); both read back exactly."""
    move = Move.parse("R0,0+G1,0")
    for token in ("2", "2v", "3", "2T"):
        rules = Rules.parse(token)
        pos = _placed(_dealt(rules, _standard_racks(rules.players)), move, seat=0)
        pos = pos.replace(to_move=1)
        assert pos.first[0] == NO_SYMBOL
        assert Position.parse(pos.to_text()) == pos
        assert Game.from_position(pos).position == pos


def test_phase_over_when_the_game_is_not_over() -> None:
    """RULES §3.6: 'x' needs a full board, six capped counters or empty racks."""
    pos = _dealt(Rules(2), _standard_racks(2))
    with pytest.raises(PositionError, match="has not ended"):
        load(pos.replace(phase="over"))
    with pytest.raises(PositionError, match="has not ended"):
        Game.from_text(pos.replace(phase="over").to_text())
    game = _mid_game("3", seed=3, moves=20)
    assert not game.is_over
    with pytest.raises(PositionError, match="has not ended"):
        load(game.position.replace(phase="over"))
    near = pos.replace(scores=((18,) * 5 + (17,), (0,) * 6), phase="over")
    with pytest.raises(PositionError, match="has not ended"):
        load(near)


@pytest.mark.parametrize(
    "change",
    [
        {"scores": ((19, 0, 0, 0, 0, 0), (0,) * 6)},  # above the cap (RULES §3.3)
        {"scores": ((0,) * 5, (0,) * 6)},
        {"to_move": 2},
        {"to_move": -1},
        {"turn": 0},
        {"racks": (((0, 1),) * 7, ())},  # more than six tiles (RULES §2.3)
        {"racks": ((),)},
        {"first": (0, 0)},  # a symbol touched twice (RULES §3.2)
        {"first": (None,)},
        {"board": {(0, -5): 0}},  # a printed symbol's cell (RULES §1.4)
        {"board": {(6, 0): 1}},  # outside the 2-player area (RULES §1.3)
        {"board": {(0, 0): 6}},
        {"phase": "swap"},  # every colour is lowest: the rack holds one (RULES §3.5)
        {"bag": (0,) * 20},
    ],
)
def test_load_refuses_impossible_positions(change: dict[str, object]) -> None:
    pos = _dealt(Rules(2), _standard_racks(2)).replace(**change)
    with pytest.raises(PositionError):
        load(pos)
    with pytest.raises(PositionError):
        Game.from_position(pos)


def test_from_position_refuses_other_objects() -> None:
    pos = _dealt(Rules(2), _standard_racks(2))
    with pytest.raises(PositionError):
        Game.from_position(pos.to_text())  # type: ignore[arg-type]


def test_bonus_plays_are_not_owed_in_a_finished_game() -> None:
    pos = _dealt(Rules(2), _standard_racks(2)).replace(scores=((18,) * 6, (0,) * 6), phase="over")
    assert Game.from_position(pos).is_over
    with pytest.raises(PositionError, match="bonus"):
        load(pos.replace(bonus=1))


def test_every_tile_type_is_counted() -> None:
    """Each of the 21 types (RULES §2.1) is checked on its own."""
    rules = Rules(2)
    for t, tile in enumerate(TILES):
        bag = list(rules.tile_counts)
        pos = Position.empty(rules).replace(racks=((tile,), ()), bag=tuple(bag))
        with pytest.raises(PositionError, match="tiles in the bag"):
            load(pos)
        bag[t] -= 1
        load(pos.replace(bag=tuple(bag)))


# -- regressions found in review (moved from test_review_regressions.py) --------------------------


def _fields() -> list[str]:
    return Game(2, seed=1).to_text().split()


def test_tile_types_counted_over_racks_and_bag() -> None:
    fields = _fields()
    fields[3] = "RR" * 6 + "/" + "RR" * 6
    fields[4] = "5" + "0" * 20
    with pytest.raises(PositionError, match="RR tiles"):
        Game.from_text(" ".join(fields))


@pytest.mark.parametrize(
    ("index", "value"),
    [(9, "40000"), (9, "2147483648"), (9, "\u00b2"), (5, "\u00b2"), (7, "\u00b2"), (9, "0")],
)
def test_numeric_fields_are_checked(index: int, value: str) -> None:
    fields = _fields()
    fields[index] = value
    before = " ".join(fields)
    with pytest.raises(PositionError):
        Game.from_text(before)
    record = Game(2, seed=1).to_record()
    record["start"] = before
    with pytest.raises(RecordError):
        Game.from_record(record)


def test_turn_saturates_at_the_last_int16() -> None:
    fields = _fields()
    fields[9] = "32767"
    game = Game.from_text(" ".join(fields), seed=1)
    game.play(game.choose("greedy"))
    assert game.turn == 32767
    assert Game.from_text(game.to_text()) == game


# -- positions that cannot be (RULES §2.1, §3.4, §4.1, §4.3) --------------------------------------


def test_board_halves_must_pair_into_tiles() -> None:
    """RULES §2.1: tiles have two adjacent halves, so the covered cells pair up: an odd count,
    a half with no covered neighbour, or cells that no tiling pairs are refused (unless asked
    for a scoring study with pair_tiles=False)."""
    base = _dealt(Rules(2), _standard_racks(2)).replace(bag=(0,) * 21)  # room for the board
    odd = base.replace(board={(0, 0): 0})
    with pytest.raises(PositionError, match="odd"):
        load(odd)
    lone = base.replace(board={(0, 0): 0, (3, 0): 1})
    with pytest.raises(PositionError, match="no covered neighbour"):
        load(lone)
    # a path of four cells pairs; a star of one centre and three leaves does not
    assert Game.from_position(base.replace(board={(0, 0): 0, (1, 0): 1, (2, 0): 2, (3, 0): 3}))
    star = {(0, 0): 0, (1, 0): 1, (0, -1): 2, (-1, 1): 3}  # three leaves, none adjacent
    with pytest.raises(PositionError, match="do not pair"):
        load(base.replace(board=star))
    assert Game.from_position(base.replace(board=star), pair_tiles=False).free_pairs > 0


def test_bonus_plays_owed_must_be_possible() -> None:
    """RULES §3.4: each bonus play is earned by a counter reaching 18 (and 36 in teams, RULES
    §4.2); none in solo (RULES §4.1); at most one per placement under tournament rules
    (RULES §4.3)."""
    pos = _dealt(Rules(2), _standard_racks(2))
    with pytest.raises(PositionError, match="first placement"):
        load(pos.replace(bonus=1))  # seat 0 has placed nothing: no placement earned a bonus
    pos = pos.replace(first=(0, None))  # seat 0 has made its first placement (touching red)
    with pytest.raises(PositionError, match="threshold"):
        load(pos.replace(bonus=1))
    two = ((18, 18, 0, 0, 0, 0), (0,) * 6)
    assert Game.from_position(pos.replace(scores=two, bonus=2)).bonus_plays == 2
    with pytest.raises(PositionError, match="threshold"):
        load(pos.replace(scores=two, bonus=3))
    tournament = _dealt(Rules(2, tournament=True), _standard_racks(2)).replace(first=(0, None))
    with pytest.raises(PositionError, match="tournament"):
        load(tournament.replace(scores=two, bonus=2))
    assert Game.from_position(tournament.replace(scores=two, bonus=1)).bonus_plays == 1
    solo = _dealt(Rules(1), (((0, 0),),))
    with pytest.raises(PositionError, match="solo"):
        load(solo.replace(scores=((18,) + (0,) * 5,), bonus=1))
    teams = _dealt(Rules(4, teams=True), _standard_racks(4)).replace(first=(0, None, None, None))
    at36 = ((36, 0, 0, 0, 0, 0), (0,) * 6) * 2
    assert Game.from_position(teams.replace(scores=at36, bonus=2)).bonus_plays == 2


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 9).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.sets(
                st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(
                    lambda e: e[0] < e[1]
                )
            ),
        )
    )
)
def test_max_matching_is_maximum(graph: tuple[int, set[tuple[int, int]]]) -> None:
    """The blossom matching behind the tiling check is a matching, and no larger one exists
    (brute force over edge subsets of small graphs, odd cycles included)."""
    n, edges = graph
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    match = max_matching(adj)
    assert all(m == -1 or (match[m] == v and m in adj[v]) for v, m in enumerate(match))
    size = sum(1 for v, m in enumerate(match) if m > v)
    best = 0
    for k in range(len(edges), 0, -1):
        if any(
            len({v for e in comb for v in e}) == 2 * k
            for comb in itertools.combinations(sorted(edges), k)
        ):
            best = k
            break
    assert size == best
