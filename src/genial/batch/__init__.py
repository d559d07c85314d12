"""Batches of whole games at C speed, for any game of the registry.

``simulate(n_games, rules, **arguments)`` plays a batch of any game and returns ``Playouts``
(its keywords are ``out`` and those of ``RunArguments``, the same for every game; a game's own
options go in ``options={...}``); a ``BatchSpec`` says everything that determines the games but
their number; ``run_chunk(spec, chunk, size)`` plays one chunk and returns its rows (pure:
threads, processes and clusters are backends of one map: ``backend="dask"`` or
``backend=Scheduler(address)`` runs the chunks on a Dask cluster). ``simulate(...,
out="runs/")`` writes a Parquet dataset part by part instead (``out=Output("runs/",
resume=True)`` finishes an interrupted one); ``open_dataset`` (also ``genial.batch.open``) reads
it back as a ``Dataset``, checking whatever it reads (``DatasetError``; ``docs/datasets.md``).

>>> runs = simulate(2000, 2, policy="random", seed=1)
>>> len(runs), runs.scores.shape, runs.ranks.shape
(2000, (2000, 2, 6), (2000, 2))
>>> runs.replay(7).scores.tolist() == runs.scores[7].tolist()
True
"""

from .dataset import (
    AnotherRunError,
    Dataset,
    DatasetError,
    DatasetExistsError,
    DatasetRepairWarning,
    open_dataset,
)
from .results import Playouts, Summary
from .run import (
    RUN_DEFAULTS,
    SPEC_DEFAULTS,
    Output,
    RunArguments,
    Scheduler,
    SpecArguments,
    prepare,
    run,
    run_chunk,
    run_many,
    simulate,
)
from .spec import CHUNK, SEARCH_CHUNK, BatchSpec, Chunk, GameAdapter

open = open_dataset  # genial.batch.open("runs/"); not in __all__: it would shadow the builtin

__all__ = [
    "CHUNK",
    "RUN_DEFAULTS",
    "SEARCH_CHUNK",
    "SPEC_DEFAULTS",
    "AnotherRunError",
    "BatchSpec",
    "Chunk",
    "Dataset",
    "DatasetError",
    "DatasetExistsError",
    "DatasetRepairWarning",
    "GameAdapter",
    "Output",
    "Playouts",
    "RunArguments",
    "Scheduler",
    "SpecArguments",
    "Summary",
    "open_dataset",
    "prepare",
    "run",
    "run_chunk",
    "run_many",
    "simulate",
]
