"""Run-time CPU dispatch of the kernels (``genial/_common.pxd``, ``genial/_cpu.pxi``; issue 19).

``select64`` (the k-th set bit of a word: the random policies' pick of a free edge, of a card)
is one ``pdep`` where the CPU has a fast one and the portable broadword select elsewhere. The
same games must come out on both paths, bit for bit; the BMI2 path is tested wherever the CPU
has BMI2 (even with a slow ``pdep``), and skipped, saying why, where it has not.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from genial import Rules, _core
from genial.cards import CardRules
from genial.cards import _kernel as _cards
from genial.policies import kernel_codes

KERNELS: dict[str, Any] = {"board": _core, "cards": _cards}


@pytest.fixture(params=sorted(KERNELS))
def kernel(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A kernel, its select64 path put back as it was after the test."""
    module = KERNELS[request.param]
    portable = module._cpu_features()["select64"] == "portable"
    yield module
    module._use_portable(portable)


def games(kernel: Any, policy: str = "random", n: int = 150) -> bytes:
    """The rows and logs of ``n`` games of a fresh deal (3 seats) on fixed streams."""
    core = Rules(3).core() if kernel is _core else CardRules(3).core()
    codes, eps = kernel_codes((policy,) * 3, (0.1,) * 3)
    rows = np.zeros(n, dtype=kernel.ROW_DTYPE)
    logs = np.zeros(n, dtype=kernel.LOG_DTYPE)
    kernel.run_chunk(core, np.random.PCG64(8), np.random.PCG64(9), True, codes, eps, rows, logs)
    return bytes(rows.tobytes() + logs.tobytes())


def test_features_are_consistent(kernel: Any) -> None:
    f = kernel._cpu_features()
    assert set(f) == {"dispatch", "vendor", "family", "bmi2", "fast_pdep", "select64"}
    assert f["select64"] in ("bmi2", "portable")
    assert not f["fast_pdep"] or f["bmi2"]
    assert f["dispatch"] or not f["bmi2"]
    if f["bmi2"] and f["vendor"] == "GenuineIntel":
        assert f["fast_pdep"]
    if f["vendor"] == "AuthenticAMD" and f["family"] < 0x19:
        assert not f["fast_pdep"]  # Zen 1, Zen 2 and older: microcoded pdep
    if f["vendor"] not in ("GenuineIntel", "AuthenticAMD"):
        assert not f["fast_pdep"]


def test_the_automatic_choice_follows_the_rule() -> None:
    """At import each kernel takes the BMI2 path exactly where the CPU's pdep is fast."""
    for module in KERNELS.values():
        f = module._cpu_features()
        # (another test may have switched it: that one restores it; here it is as imported)
        assert f["select64"] == ("bmi2" if f["fast_pdep"] else "portable")


def test_portable_path(kernel: Any) -> None:
    kernel._use_portable(True)
    assert kernel._cpu_features()["select64"] == "portable"
    a = games(kernel)
    assert kernel._use_portable(True) is True  # it says what was in use
    assert games(kernel) == a


def test_bmi2_path_plays_the_same_games(kernel: Any) -> None:
    f = kernel._cpu_features()
    if not f["bmi2"]:
        reason = "no run-time dispatch in this build (MSVC or not x86)"
        if f["dispatch"]:
            reason = f"this CPU ({f['vendor'] or 'unknown'}, family {f['family']:#x}) has no BMI2"
        pytest.skip(f"the BMI2 path of select64 cannot run here: {reason}")
    kernel._use_portable(True)
    portable = {policy: games(kernel, policy) for policy in ("random", "epsilon-greedy")}
    assert kernel._use_portable(False) is True
    assert kernel._cpu_features()["select64"] == "bmi2"
    for policy, played in portable.items():
        assert games(kernel, policy) == played
    assert kernel._use_portable(True) is False
