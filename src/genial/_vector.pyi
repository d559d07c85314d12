"""Typed stub of the compiled vector-environment kernel ``genial._vector`` (see ``_vector.pyx``)."""

from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from ._core import Core

POLICY_KEY: int
ENV_BYTES: int
ENV_FIELDS: dict[str, int]
MASK_SIZE: int

def area_cells(radius: int) -> list[tuple[int, int]]: ...
def pcg_step_agrees(state_hi: int, state_lo: int, inc_hi: int, inc_lo: int, steps: int) -> bool: ...

S = TypeVar("S")

class _EnvBatch(Generic[S]):
    """The loops every vector kernel shares (``genial/_envs.pxi``, compiled into each kernel
    module: ``genial.cards._vector`` has its own copy of this class); ``S`` is the kernel's
    state class."""

    @property
    def arrays(self) -> dict[str, npt.NDArray[Any]]: ...
    def seed(self, prefix: npt.NDArray[np.uint32], pool_size: int) -> None: ...
    def pool(self, x: int, y: int) -> list[int]: ...
    def start(self, fresh: bool) -> None: ...
    def step(self, actions: npt.NDArray[np.int32]) -> int: ...
    def last_actions(self) -> npt.NDArray[np.int32]: ...
    def sample(self, out: npt.NDArray[np.int32]) -> None: ...
    def snapshot(
        self,
    ) -> tuple[bytes, npt.NDArray[np.uint32], int, dict[str, npt.NDArray[Any]]]: ...
    def restore(
        self,
        envs: bytes,
        prefix: npt.NDArray[np.uint32],
        pool_size: int,
        arrays: dict[str, npt.NDArray[Any]],
    ) -> None: ...
    def core(self, i: int) -> S: ...
    def stream_state(self, i: int, policy: bool = False) -> dict[str, Any]: ...

class Kernel(_EnvBatch[Core]):
    """``n`` board games stepped together; outputs in ``arrays`` (written in place)."""

    def __init__(self, base: Core, n: int, mode: int, max_turns: int) -> None: ...
    def reason(self, i: int, action: int) -> int: ...
