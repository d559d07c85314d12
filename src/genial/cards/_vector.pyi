"""Typed stub of the compiled card-game vector kernel ``genial.cards._vector`` (see
``_vector.pyx``)."""

from typing import Any

import numpy as np
import numpy.typing as npt

from ._kernel import Cards

POLICY_KEY: int
ENV_FIELDS: dict[str, int]
EMPTY_SLOT: int
ENV_BYTES: int

class Kernel:
    """``n`` card games stepped together; outputs in ``arrays`` (written in place)."""

    @property
    def arrays(self) -> dict[str, npt.NDArray[Any]]: ...

    def __init__(self, base: Cards, n: int, mode: int, max_turns: int) -> None: ...
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
    def core(self, i: int) -> Cards: ...
    def stream_state(self, i: int, policy: bool = False) -> dict[str, Any]: ...
