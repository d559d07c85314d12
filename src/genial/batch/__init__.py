"""Batches of whole games at C speed, for any game of the registry.

``simulate`` plays a batch and returns ``Playouts``; a ``BatchSpec`` says everything that
determines the games but their number; ``run_chunk(spec, chunk, size)`` plays one chunk and
returns its rows (pure: threads, processes and clusters are backends of one map).

>>> runs = simulate(2000, players=2, policy="random", seed=1)
>>> len(runs), runs.scores.shape, runs.ranks.shape
(2000, (2000, 2, 6), (2000, 2))
>>> runs.replay(7).scores.tolist() == runs.scores[7].tolist()
True
"""

from .results import Playouts, Summary
from .run import prepare, run, run_chunk, run_many, simulate
from .spec import CHUNK, BatchSpec, Chunk, GameAdapter

__all__ = [
    "CHUNK",
    "BatchSpec",
    "Chunk",
    "GameAdapter",
    "Playouts",
    "Summary",
    "prepare",
    "run",
    "run_chunk",
    "run_many",
    "simulate",
]
