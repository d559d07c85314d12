"""Names of the kernel's policies, read and checked in one place.

``"random"``: a uniformly random rack tile on a uniformly random legal pair of cells, a random way
round, the swap on a fair coin. ``"greedy"``: the placement maximising ``sum_c -(cap - s_c)^2``
after it, ties at random, swapping whenever allowed. ``"epsilon-greedy"`` (or
``"epsilon-greedy:0.2"``): a random move with probability epsilon, else greedy.

The search policies of the board game (docs/search.md) look ahead by playing games out in the
kernel, from determinisations that redraw what the seat to move cannot see (the other racks and
the bag) from the tiles it has not seen:

- ``"mc:N"``: flat Monte Carlo, ``N`` playouts per decision shared by sequential halving among
  the candidates;
- ``"mcts:N"``: information-set Monte Carlo tree search (single observer), ``N`` iterations;
- ``"value"``: one ply scored by the learned evaluation (docs/value.md): of greedy's best ``K``
  placements, the one whose position the evaluation rates best for the mover; it swaps when a
  fresh rack rates better than the kept one.

``N`` is 1 to 100,000 (``value`` takes none). Options follow, each after a colon, in any
order: the rollout policy ``random``, ``greedy`` (the default) or ``value`` (greedy for a few
turns, then the learned evaluation scores the position instead of the game's end: ``dD``
sets the turns, 0 to 40, by default two rounds and at least six); ``kK``, the candidates,
greedy's best ``K`` placements at each decision (default ``k10``; ``k0``: every legal
placement; ``value`` takes only this option, K >= 1); and for mcts only ``cX``, the UCB
exploration constant (default ``c0.7``). The swap decision always weighs both options. A name
is shown in its canonical form (defaults left out):

>>> parse_policy("epsilon-greedy:0.25")
('epsilon-greedy', 0.25)
>>> parse_policies("greedy", seats=2)
(('greedy', 'greedy'), (0.1, 0.1))
>>> parse_policy("mc:200:k10:greedy")[0]
'mc:200'
>>> search_spec("mcts:500:random:c1.4")
SearchSpec(kind='mcts', iterations=500, rollout='random', top_k=10, explore=1.4, depth=None)
>>> parse_policy("mc:100:d2:value")[0]
'mc:100:value:d2'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import _core
from .errors import GenialError, checked_real, excerpt

__all__ = [
    "DEFAULT_EPSILON",
    "POLICIES",
    "PRESETS",
    "SEARCH_POLICIES",
    "SearchSpec",
    "canonical",
    "kernel_codes",
    "kernel_policies",
    "parse_policies",
    "parse_policy",
    "policy_families",
    "search_spec",
]

POLICIES = ("random", "greedy", "epsilon-greedy")
SEARCH_POLICIES = ("mc", "mcts", "value")
"""The board game's own policies, with parameters (``SearchSpec``): the searches and ``value``."""
DEFAULT_EPSILON = 0.1
MAX_ITERATIONS = 100_000
DEFAULT_ROLLOUT = "greedy"
DEFAULT_TOP_K = 10
DEFAULT_EXPLORE = 0.7
MAX_EXPLORE = 10.0
_MAX_NAME = 40
PRESETS = {"strong": "mc:40:value"}
"""Named policies: ``strong`` is the books' policy, the strongest policy affordable for whole
opening tables, chosen along the ladder (docs/search.md): 40 playouts per decision among
greedy's best 10 moves, each cut and scored by the learned evaluation; it beats ``mc:100`` at
0.43 times ``mc:100:value``'s time a game. A preset stands for its policy everywhere and is
recorded under that policy's canonical name."""


@dataclass(frozen=True)
class SearchSpec:
    """A search policy's parameters: ``kind`` (``"mc"``, ``"mcts"``, or ``"value"``, which
    uses ``top_k`` only), ``iterations`` (playouts or iterations per decision; 1 for value),
    ``rollout`` (``"random"``, ``"greedy"`` or ``"value"``), ``top_k`` (greedy's best k
    placements are the candidates; 0: every legal one), ``explore`` (mcts's UCB exploration
    constant) and ``depth`` (a value rollout's turns before the evaluation; ``None``: the
    default, ``turns``)."""

    kind: str
    iterations: int
    rollout: str = DEFAULT_ROLLOUT
    top_k: int = DEFAULT_TOP_K
    explore: float = DEFAULT_EXPLORE
    depth: int | None = None

    def turns(self, players: int) -> int:
        """The kernel's rollout depth for ``players`` seats: ``depth``, or by default two
        rounds and at least six turns (the best of those measured, docs/value.md).

        >>> SearchSpec("mc", 100, rollout="value").turns(4)
        8
        """
        return max(6, 2 * players) if self.depth is None else self.depth

    @property
    def name(self) -> str:
        """The canonical policy name (options at their defaults left out).

        >>> SearchSpec("mc", 50, rollout="random", top_k=0).name
        'mc:50:random:k0'
        >>> SearchSpec("value", 1, top_k=20).name
        'value:k20'
        """
        if self.kind == "value":
            return "value" if self.top_k == DEFAULT_TOP_K else f"value:k{self.top_k}"
        parts = [self.kind, str(self.iterations)]
        if self.rollout != DEFAULT_ROLLOUT:
            parts.append(self.rollout)
        if self.top_k != DEFAULT_TOP_K:
            parts.append(f"k{self.top_k}")
        if self.kind == "mcts" and self.explore != DEFAULT_EXPLORE:
            parts.append(f"c{self.explore:g}")
        if self.depth is not None:
            parts.append(f"d{self.depth}")
        return ":".join(parts)


def policy_families(search: bool = True) -> str:
    """Every family of policy names, in words (the unknown-policy message and ``--help``);
    ``search``: with the board game's own (``value``, ``mc``, ``mcts``).

    >>> print(policy_families(search=False))
    expected random, greedy, epsilon-greedy or epsilon-greedy:EPS (epsilon-greedy:0.2)
    """
    plain = "random, greedy, epsilon-greedy or epsilon-greedy:EPS (epsilon-greedy:0.2)"
    if not search:
        return f"expected {plain}"
    return (
        f"expected {plain}, or the board game's strong ({PRESETS['strong']}), value, value:kK, "
        "mc:N, mcts:N and their options (mc:200:value, mcts:500:k8; docs/search.md)"
    )


def _check_epsilon(epsilon: object, name: str) -> float:
    return checked_real(epsilon, f"policy {excerpt(name)}: epsilon", 0.0, 1.0)


def _digits(text: str) -> int | None:
    """The value of a plain decimal (ASCII digits, at most 7 of them), else None."""
    if not text or len(text) > 7 or not all("0" <= ch <= "9" for ch in text):
        return None
    return int(text)


def _parse_value(name: str, options: list[str]) -> SearchSpec:
    if len(options) > 1:
        raise GenialError(f"policy {excerpt(name)}: value takes one option, kK, at most")
    top_k = DEFAULT_TOP_K
    for option in options:
        k = _digits(option[1:]) if option[:1] == "k" else None
        if k is None:
            raise GenialError(
                f"policy {excerpt(name)}: unknown option {excerpt(option)} (value takes kK, "
                "the candidates: 'value:k20')"
            )
        if not 1 <= k <= _core.MAX_TOP_K:
            raise GenialError(
                f"policy {excerpt(name)}: k must be from 1 to {_core.MAX_TOP_K}, got {k}"
            )
        top_k = k
    _check_weights(name)
    return SearchSpec("value", 1, top_k=top_k)


def _parse_search(name: str) -> SearchSpec:
    kind, *options = name.split(":")
    if kind == "value":
        return _parse_value(name, options)
    if not options:
        raise GenialError(
            f"policy {excerpt(name)}: {kind} needs a number of "
            f"{'playouts' if kind == 'mc' else 'iterations'}, e.g. '{kind}:200'"
        )
    n = _digits(options[0])
    if n is None or not 1 <= n <= MAX_ITERATIONS:
        negative = options[0][:1] == "-" and _digits(options[0][1:]) is not None
        what = (
            f"at most {MAX_ITERATIONS:,}"
            if n is not None and n > MAX_ITERATIONS
            else "at least 1"
            if n is not None or negative
            else "a whole number"
        )
        unit = "playouts" if kind == "mc" else "iterations"
        raise GenialError(
            f"policy {excerpt(name)}: N must be {what} ({kind}:N, N {unit} from 1 to "
            f"{MAX_ITERATIONS:,}), got {excerpt(options[0])}"
        )
    found: dict[str, object] = {}
    for option in options[1:]:
        value: object
        k = _digits(option[1:]) if option[:1] == "k" else None
        if option in _core.ROLLOUTS:
            key, value = "rollout", option
        elif k is not None:
            key, value = "top_k", k
            if not 0 <= k <= _core.MAX_TOP_K:
                raise GenialError(
                    f"policy {excerpt(name)}: k must be from 0 to {_core.MAX_TOP_K}, got {k}"
                )
        elif option[:1] == "c" and kind == "mcts":
            key, value = "explore", _explore(option[1:], name)
        elif option[:1] == "d" and (d := _digits(option[1:])) is not None:
            key, value = "depth", d
            if not 0 <= d <= _core.MAX_ROLLOUT_DEPTH:
                raise GenialError(
                    f"policy {excerpt(name)}: d (turns before the evaluation) must be from 0 "
                    f"to {_core.MAX_ROLLOUT_DEPTH}, got {d}"
                )
        else:
            allowed = "random, greedy, value, kK, dD" + (", cX" if kind == "mcts" else "")
            raise GenialError(
                f"policy {excerpt(name)}: unknown option {excerpt(option)} (options: {allowed})"
            )
        if key in found:
            raise GenialError(f"policy {excerpt(name)}: {key} is given twice")
        found[key] = value
    if "depth" in found and found.get("rollout") != "value":
        raise GenialError(
            f"policy {excerpt(name)}: dD is the depth of value rollouts ('{kind}:{n}:value:d2')"
        )
    if found.get("rollout") == "value":
        _check_weights(name)
    return SearchSpec(kind, n, **found)  # type: ignore[arg-type]


def _check_weights(name: str) -> None:
    """Refuse a policy that needs the learned evaluation when its weights file is damaged
    (the kernel reads it when first needed; the other policies never do)."""
    error = _core.value_weights_error()
    if error is not None:
        raise GenialError(f"policy {excerpt(name)}: {error}")


def _explore(text: str, name: str) -> float:
    try:
        value = float(text) if text.strip() == text else math.nan
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= MAX_EXPLORE:  # also refuses nan
        raise GenialError(
            f"policy {excerpt(name)}: c (exploration) must be a number from 0 to {MAX_EXPLORE:g}, "
            f"got {excerpt(text)}"
        )
    return value


def search_spec(name: str) -> SearchSpec | None:
    """The parameters of a search policy's name, ``None`` for another policy's name;
    ``GenialError`` if it is no policy.

    >>> search_spec("greedy") is None
    True
    """
    base, _ = parse_policy(name)
    return _parse_search(base) if base.partition(":")[0] in SEARCH_POLICIES else None


def parse_policy(
    name: object, epsilon: float = DEFAULT_EPSILON, *, search: bool = True
) -> tuple[str, float]:
    """``(base name, epsilon)`` of a policy name; ``GenialError`` if it is not one. A search
    policy's base name is its canonical name (``'mc:200'``); ``search=False`` refuses them (a
    game without search policies)."""
    if not isinstance(name, str) or len(name) > _MAX_NAME:
        raise GenialError(f"a policy is a name like 'greedy', got {excerpt(name)}")
    if name in PRESETS:
        if not search:
            raise GenialError(f"policy {excerpt(name)}: a preset of the board game's policies")
        name = PRESETS[name]
    base, _, param = name.partition(":")
    if base in SEARCH_POLICIES:
        if not search:
            raise GenialError(
                f"policy {excerpt(name)}: mc, mcts and value are the board game's policies"
            )
        return _parse_search(name).name, _check_epsilon(epsilon, name)
    if base not in POLICIES:
        raise GenialError(f"unknown policy {excerpt(name)}: {policy_families(search)}")
    if not param:
        return base, _check_epsilon(epsilon, name)
    if base != "epsilon-greedy":
        raise GenialError(f"policy {excerpt(name)}: only epsilon-greedy takes a parameter")
    try:
        value = float(param)
    except ValueError:
        raise GenialError(f"policy {excerpt(name)}: {excerpt(param)} is not a number") from None
    return base, _check_epsilon(value, name)


def canonical(base: str, epsilon: float) -> str:
    """The display name: ``'greedy'``, ``'epsilon-greedy:0.2'``, ``'mc:200'``."""
    return f"epsilon-greedy:{epsilon:g}" if base == "epsilon-greedy" else base


def _refuse_callable(policy: object) -> None:
    """A Python callable as a policy: say where such a policy runs (batches play the kernel's
    built-in policies without Python in the loop)."""
    if callable(policy):
        raise GenialError(
            f"policy {excerpt(policy)} is a callable: simulate plays the kernel's built-in "
            "policies (random, greedy, epsilon-greedy, value, mc:N, mcts:N) without Python in "
            "the loop; to play a policy of your own, step games in batches with "
            "genial.vector.VectorEnv (docs/vector.md, 'Custom policies')"
        )


def parse_policies(
    policy: str | Sequence[str],
    seats: int,
    epsilon: float = DEFAULT_EPSILON,
    *,
    search: bool = True,
) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """One policy for every seat, or one per seat: ``(names, epsilons)`` per seat (names are
    base names; ``epsilons`` exact). ``search=False`` refuses the search policies."""
    if isinstance(policy, str):
        names: list[object] = [policy] * seats
    elif isinstance(policy, (list, tuple)):
        names = list(policy)
    else:
        _refuse_callable(policy)
        raise GenialError(f"policy: a name or a sequence of names, got {excerpt(policy)}")
    for name in names:
        _refuse_callable(name)
    if len(names) != seats:
        raise GenialError(
            f"policy: give one policy or one per seat ({seats}), got {len(names)}: {excerpt(names)}"
        )
    parsed = [parse_policy(name, epsilon, search=search) for name in names]
    return tuple(b for b, _ in parsed), tuple(e for _, e in parsed)


def kernel_codes(names: Sequence[str], epsilons: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's per-seat policy codes and epsilons (arrays of the kernel's seat count), for
    the built-in policies only (a game without search: ``GenialError`` for a search name)."""
    if any(name.partition(":")[0] in SEARCH_POLICIES for name in names):
        raise GenialError(
            f"policies {excerpt(list(names))}: mc, mcts and value are the board game's policies"
        )
    codes, eps, _ = kernel_policies(names, epsilons)
    return codes, eps


def kernel_policies(
    names: Sequence[str], epsilons: Sequence[float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The board kernel's per-seat policy codes, epsilons and search parameters
    (``_core.SEARCH_DTYPE``), arrays of the kernel's seat count, for ``run_chunk``."""
    codes = np.zeros(_core.MAX_PLAYERS, dtype=np.uint8)
    eps = np.zeros(_core.MAX_PLAYERS, dtype=np.float64)
    search = np.zeros(_core.MAX_PLAYERS, dtype=_core.SEARCH_DTYPE)
    for seat, (name, e) in enumerate(zip(names, epsilons, strict=True)):
        spec = _parse_search(name) if name.partition(":")[0] in SEARCH_POLICIES else None
        if spec is None:
            codes[seat] = _core.POLICIES[name]
        else:
            codes[seat] = _core.POLICIES[spec.kind]
            search[seat] = (
                spec.iterations,
                spec.top_k,
                _core.POLICIES[spec.rollout],
                spec.turns(len(names)),
                spec.explore,
            )
        eps[seat] = e
    return codes, eps, search
