"""Running batches: the pure chunk function and ``simulate``.

Chunk ``c`` of a batch draws all its randomness from ``PCG64(child_seed(seed, c))``, so results
depend only on the spec and never on the number of workers or the backend. ``run_chunk`` is pure
(it returns its arrays), so threads, processes and clusters are only backends of one ``map``
(``genial.batch.backends``: serial, threads, a Dask cluster). With ``out=`` a batch goes to a
Parquet dataset on disk chunk by chunk instead of memory (``genial.batch.dataset``).
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, overload

import numpy as np

from ..errors import GenialError, checked_flag, excerpt
from ..registry import entry, entry_of
from ..seeds import as_seed_sequence
from .backends import checked_backend
from .chunks import (
    MAX_GAMES,
    Work,
    check_memory,
    run,
    run_chunk,
    run_many,
)
from .results import Playouts
from .spec import BatchSpec, check_fields

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import Unpack

    from .dataset import Dataset

__all__ = [
    "RUN_DEFAULTS",
    "SPEC_DEFAULTS",
    "Output",
    "RunArguments",
    "Scheduler",
    "SpecArguments",
    "Work",
    "check_memory",
    "prepare",
    "run",
    "run_chunk",
    "run_many",
    "scheduled",
    "simulate",
]

class SpecArguments(TypedDict, total=False):
    """The keyword arguments that determine a batch's games (``prepare``; ``simulate`` takes
    them and ``RunArguments``). Every one may be left out (``SPEC_DEFAULTS``)."""

    game: str | None  # the registry name; None: the game of the rules object, else "board"
    policy: str | Sequence[str]  # one policy name for every seat, or one per seat
    seed: Any  # anything numpy.random.default_rng accepts
    start: Any  # a game or position text every game continues from
    options: Mapping[str, Any] | None  # the game's own options (its adapter's ``options``)
    records: bool  # keep every game's log


class RunArguments(SpecArguments, total=False):
    """``SpecArguments`` and how the games are played (not what they are)."""

    workers: int | None  # threads (or local Dask workers); -1: every core
    progress: bool  # show a progress bar
    backend: str | Scheduler  # "threads", "serial", "dask", or a Scheduler(address)


SPEC_DEFAULTS: SpecArguments = {
    "game": None,
    "policy": "random",
    "seed": None,
    "start": None,
    "options": None,
    "records": False,
}
"""The default of each ``SpecArguments`` keyword."""

RUN_DEFAULTS: RunArguments = {
    **SPEC_DEFAULTS,
    "workers": None,
    "progress": False,
    "backend": "threads",
}
"""The default of each ``RunArguments`` keyword (``simulate``)."""


@dataclass(frozen=True)
class Scheduler:
    """``simulate(..., backend=Scheduler(address))``: run the chunks on the Dask cluster whose
    scheduler is at ``address`` (``"tcp://host:8786"``, a ``distributed.Client`` used as it is
    and left open, or a cluster object); ``backend="dask"`` starts a local cluster instead."""

    address: Any


@dataclass(frozen=True)
class Output:
    """``simulate(..., out=Output(path, resume=True))``: the dataset on disk a batch is written
    to, with what to do about one already there: ``overwrite`` replaces it (else it is
    refused, before anything is played); ``resume`` finishes an interrupted run of the same
    arguments, playing only its missing parts. ``out=path`` is ``Output(path)``."""

    path: str | os.PathLike[str]
    overwrite: bool = False
    resume: bool = False


def scheduled(backend: Any, address: Any) -> Any:
    """``simulate``'s ``backend`` for a backend name and a Dask scheduler's address given apart
    (as genial 0.2 and the command line give them; ``address=None``: none): ``backend``, or
    ``Scheduler(address)`` with ``backend="dask"`` (``GenialError`` with another backend).

    >>> scheduled("dask", "tcp://10.0.0.5:8786"), scheduled("threads", None)
    (Scheduler(address='tcp://10.0.0.5:8786'), 'threads')
    """
    if address is None:
        return backend
    if backend != "dask":
        raise GenialError("address is a Dask scheduler's: pass backend='dask' with it")
    return Scheduler(address)


_RULES_KEYWORDS = ("players", "teams", "tournament", "tiles")
_DEPRECATED = {  # the keywords of genial 0.2, and what says the same now
    **dict.fromkeys(_RULES_KEYWORDS, "rules (a player count, a token such as '4t', or a Rules)"),
    "openings": "options={'openings': ...}",
    "epsilon": "options={'epsilon': ...}",
    "address": "backend=Scheduler(address)",
    "overwrite": "out=Output(path, overwrite=True)",
    "resume": "out=Output(path, resume=True)",
}


def _upgrade(
    rules: Any, out: Any, arguments: dict[str, Any], call: str
) -> tuple[Any, Any, dict[str, Any]]:
    """The one compatibility path: the keywords of genial 0.2 (``players``, ``teams``,
    ``tournament``, ``tiles``, ``openings``, ``epsilon``, ``address``, ``overwrite``,
    ``resume``) mapped to ``rules``, ``options``, ``backend`` and ``out``, with a
    ``DeprecationWarning`` naming the new spelling; any other unknown keyword a ``TypeError``
    as Python gives it."""
    known = (
        RunArguments.__optional_keys__ if call == "simulate" else SpecArguments.__optional_keys__
    )
    allowed = (
        tuple(_DEPRECATED) if call == "simulate" else (*_RULES_KEYWORDS, "openings", "epsilon")
    )
    for name in arguments:
        if name not in known and name not in allowed:
            raise TypeError(f"{call}() got an unexpected keyword argument {name!r}")
    old = {name: arguments.pop(name) for name in _DEPRECATED if name in arguments}
    if not old:
        return rules, out, arguments
    hints = dict.fromkeys(_DEPRECATED[k] for k in old)  # one hint for players and teams
    warnings.warn(
        f"{call}(..., {'=, '.join(old)}=) is deprecated: use {'; '.join(hints)}",
        DeprecationWarning,
        stacklevel=3,
    )
    variant = {k: old[k] for k in _RULES_KEYWORDS if k in old and k != "players"}
    if old.get("players") is None:  # (None was the game's own default)
        old.pop("players", None)
    if variant or "players" in old:
        game = entry(_game_of(rules, arguments.get("game")))
        if "players" in old:  # genial 0.2: simulate(n, players=4, rules=None, teams=...)
            named: tuple[Any, ...] = (old["players"],)
            variant.update({"rules": rules} if rules is not None else {})
        else:  # simulate(n, 4, teams=True): the count was the players, positionally
            named = () if rules is None else (rules,)
        try:
            inspect.signature(game.rules).bind(*named, **variant)
        except TypeError:
            raise GenialError(
                f"{', '.join(variant)}: not keywords of the {game.name} game's rules"
            ) from None
        rules = game.rules(*named, **variant)
    if isinstance(old.get("openings"), (list, tuple)) and not old["openings"]:
        del old["openings"]  # no openings, the default (which a game without them accepted)
    moved = {k: old[k] for k in ("openings", "epsilon") if k in old}
    if moved:
        options = arguments.get("options") or {}
        if not isinstance(options, Mapping):
            raise GenialError(
                f"options: a mapping of option names to values, got {excerpt(options)}"
            )
        if clash := sorted(set(moved) & set(options)):
            raise GenialError(f"{', '.join(clash)}: given both as a keyword and in options")
        arguments["options"] = {**options, **moved}
    if "address" in old:
        arguments["backend"] = scheduled(arguments.get("backend", "threads"), old["address"])
    if "overwrite" in old or "resume" in old:
        if out is None:
            if old.get("overwrite") or old.get("resume"):
                raise GenialError("overwrite and resume are options of out= (a dataset on disk)")
        else:
            path = out.path if isinstance(out, Output) else out
            out = Output(
                path, overwrite=old.get("overwrite", False), resume=old.get("resume", False)
            )
    return rules, out, arguments


DEFAULT_GAME = "board"
"""The game of a batch whose rules do not name one (a player count, a token or none)."""


def _game_of(rules: Any, game: Any) -> Any:
    """The registry name of a batch's game: ``game``, else the game of the rules object, else
    ``DEFAULT_GAME``."""
    if game is not None:
        return game
    if rules is None or isinstance(rules, (str, int, np.integer)):
        return DEFAULT_GAME
    return entry_of(rules).name


def prepare(n_games: int, rules: Any = None, **arguments: Unpack[SpecArguments]) -> BatchSpec:
    """The checked ``BatchSpec`` of a ``simulate`` call (every argument checked, nothing played,
    nothing allocated): ``simulate``'s ``n_games``, ``rules`` and ``SpecArguments``.

    >>> spec = prepare(100, "3", policy="greedy", seed=1)
    >>> spec.game, spec.rules, spec.policies
    ('board', Rules(players=3), ('greedy', 'greedy', 'greedy'))
    """
    rules, _, given = _upgrade(rules, None, dict(arguments), "prepare")
    return _prepare(n_games, rules, given, fits=True)


def _prepare(n_games: int, rules: Any, given: dict[str, Any], *, fits: bool) -> BatchSpec:
    """``prepare`` of checked keywords (``SpecArguments`` only); ``fits``: refuse results that
    cannot fit in memory (not for a dataset on disk, which holds a few chunks at a time)."""
    arguments: dict[str, Any] = {**SPEC_DEFAULTS, **given}
    if isinstance(n_games, (bool, np.bool_)) or not isinstance(n_games, (int, np.integer)):
        raise GenialError(f"n_games must be an int, got {excerpt(n_games)}")
    if n_games < 0:
        raise GenialError(f"n_games must be >= 0, got {excerpt(int(n_games))}")
    if n_games > MAX_GAMES:
        raise GenialError(f"n_games must be at most {MAX_GAMES:,}, got {excerpt(int(n_games))}")
    records = checked_flag(arguments["records"], "records")
    game_entry = entry(_game_of(rules, arguments["game"]))
    if fits:
        check_memory(int(n_games), game_entry.adapter, bool(records))
    if not (rules is None or isinstance(rules, (str, int, np.integer)) or game_entry.owns(rules)):
        raise GenialError(f"rules {excerpt(rules)} are not rules of the {game_entry.name} game")
    game_rules = game_entry.rules() if rules is None else game_entry.rules(rules)
    checked = check_fields(
        game_entry,
        game_rules,
        policy=arguments["policy"],
        start=arguments["start"],
        options=arguments["options"],
    )
    seed = as_seed_sequence(arguments["seed"])
    return BatchSpec(game_entry.name, game_rules, seed=seed, records=bool(records), **checked)


@overload
def simulate(
    n_games: int, rules: Any = None, *, out: None = None, **arguments: Unpack[RunArguments]
) -> Playouts: ...


@overload
def simulate(
    n_games: int,
    rules: Any = None,
    *,
    out: str | os.PathLike[str] | Output,
    **arguments: Unpack[RunArguments],
) -> Dataset: ...


@overload
def simulate(
    n_games: int,
    rules: Any = None,
    *,
    out: str | os.PathLike[str] | Output | None,
    **arguments: Unpack[RunArguments],
) -> Playouts | Dataset: ...


def simulate(
    n_games: int, rules: Any = None, *, out: Any = None, **arguments: Any
) -> Playouts | Dataset:
    """Play ``n_games`` whole games of any registered game inside its kernel and return their
    results. The call is the same for every game: ``rules`` names the variant, and ten
    keywords, each optional, say the rest: ``out`` and those of ``RunArguments`` (written once,
    there; their defaults in ``RUN_DEFAULTS``). A game's own options go in ``options``.

    Parameters
    ----------
    n_games : int
        Games to play (>= 0).
    rules : int, str or a rules object, optional
        Anything the game's rules namer takes (``genial.registry.GameEntry.rules``): a player
        count, a token (``"4t"``, ``"2T"``, ``"c3:50"``) or a rules object (``Rules(4,
        teams=True)``, ``CardRules(3)``). Default: the game's own (2 players for the board
        game, 3 for the card game). A rules object names its game; else ``game`` does.
    game : str, optional
        The registry name of the game (``genial.games()``), when ``rules`` is not a rules
        object; default ``"board"``.
    policy : str or sequence of str
        ``"random"``, ``"greedy"``, ``"epsilon-greedy"`` or ``"epsilon-greedy:0.2"`` (defined in
        ``genial.policies``), or for the board game a search, ``"mc:N"`` / ``"mcts:N"``
        (docs/search.md); one name for every seat, or one per seat. A Python callable is not a
        policy here: ``genial.vector.VectorEnv`` runs those (docs/vector.md).
    seed : anything ``numpy.random.default_rng`` accepts
        The root of the run's randomness; the same seed gives identical arrays whatever
        ``workers`` and ``backend`` are.
    workers : int, optional
        Threads running kernel chunks without the GIL (default 1; ``-1`` for all cores); with
        ``backend="dask"``, the worker processes of the local cluster (default: one per core);
        not with a ``Scheduler``, whose cluster has its own.
    start : a game or position text, optional
        Continue every game from this position (hands as they are, the draws random).
    options : mapping, optional
        The game's own options (``genial.registry.entry(game).adapter.options`` names them
        with their defaults), checked by the game. Both games: ``"epsilon"``, the epsilon of
        ``"epsilon-greedy"`` seats without a parameter of their own (0.1). The board game:
        ``"openings"``, first placements every game makes (``openings[i]`` is seat ``i``'s;
        its tile is put on the seat's rack before the deal; used by ``genial.openings``; not
        with ``start``); ``"luck"``, measure every game's luck in the draws
        (``Playouts.luck``, ``Playouts.luck_on``: luck adjustment, docs/openings.md; the games
        are the same; in memory only, not with ``out``).
    records : bool
        Keep every game's log, so that ``Playouts.records`` gives its record (about 1.8 KB per
        game in memory; JSON only when asked).
    progress : bool
        Show a progress bar (tqdm if installed, else a plain one on stderr).
    backend : str or Scheduler
        Where the chunks run: ``"threads"`` (default; one thread is the serial loop),
        ``"serial"``, ``"dask"`` (a ``LocalCluster`` of worker processes started for the run,
        ``genial-sim[dask]``), or ``Scheduler(address)``: the Dask cluster whose scheduler is
        at ``address`` (``"tcp://host:8786"``, a ``distributed.Client`` used as it is and left
        open, or a cluster object). Same results on every backend.
    out : path or Output, optional
        Write the games to this directory as a partitioned Parquet dataset, part by part as
        they are played (``genial-sim[parquet]``; layout in ``docs/cluster.md``), and return
        the ``genial.batch.Dataset`` instead of a ``Playouts``: runs larger than memory.
        ``Output(path, overwrite=True)`` replaces a dataset already there (else refused
        before anything is played); ``Output(path, resume=True)`` finishes an interrupted run
        of the same arguments, playing only its missing parts.

    Notes
    -----
    The keywords of genial 0.2 still work, with a ``DeprecationWarning``: ``players=``,
    ``teams=``, ``tournament=``, ``tiles=`` (name the rules instead), ``openings=``,
    ``epsilon=`` (``options``), ``address=`` (``backend=Scheduler(address)``), ``overwrite=``,
    ``resume=`` (``out=Output(...)``). In the team game ``winner`` holds the winning team (0:
    seats 0 and 2, 1: seats 1 and 3).

    Examples
    --------
    >>> runs = simulate(3000, 3, policy=("greedy", "random", "random"), seed=7)
    >>> runs.summary().win_rate[0] > 0.8
    np.True_
    >>> simulate(10, "4t", seed=1).rules
    Rules(players=4, teams=True)
    >>> runs = simulate(10, 2, options={"openings": ["R1,-5+B2,-5"]}, seed=1)
    >>> runs.opening[:, 0].tolist() == [runs.openings[0]] * 10
    True
    >>> from genial.cards import CardRules
    >>> simulate(10, CardRules(2), policy="greedy", seed=1).rules
    CardRules(players=2)
    """
    rules, out, given = _upgrade(rules, out, dict(arguments), "simulate")
    choice: Any = given.pop("backend", RUN_DEFAULTS["backend"])
    workers = given.pop("workers", RUN_DEFAULTS["workers"])
    scheduler = isinstance(choice, Scheduler)
    address = choice.address if scheduler else None
    backend, n_workers = checked_backend("dask" if scheduler else choice, workers, address)
    progress = checked_flag(given.pop("progress", RUN_DEFAULTS["progress"]), "progress")
    target = out if out is None or isinstance(out, Output) else Output(out)
    if target is not None:
        overwrite = checked_flag(target.overwrite, "overwrite")
        resume = checked_flag(target.resume, "resume")
    spec = _prepare(n_games, rules, given, fits=target is None)
    if target is None:
        return run(
            spec,
            int(n_games),
            workers=n_workers,
            progress=progress,
            backend=backend,
            address=address,
        )
    if spec.luck:
        raise GenialError(
            "luck is kept in memory only: a dataset (out=) does not store it; play without out="
        )
    from .dataset import write

    return write(
        spec,
        int(n_games),
        target.path,
        overwrite=overwrite,
        resume=resume,
        workers=n_workers,
        backend=backend,
        address=address,
        progress=progress,
    )
