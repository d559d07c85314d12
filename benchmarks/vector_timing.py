"""Timing of a vector environment's steps, shared by ``test_vector.py`` and
``test_vector_cards.py`` (one implementation for both games' envs)."""

from __future__ import annotations

from typing import Any

STEPS = 400_000  # env-steps a round of the vector cases


def time_env(benchmark: Any, env: Any, fused: bool, **info: Any) -> float:
    """Step ``env`` (``step(sample_actions())``, or ``step_sampled()`` if ``fused``) for about
    ``STEPS`` env-steps a round, best of 3 rounds; record env-steps/s with ``info`` in
    ``extra_info`` and return it."""
    n = env.n_envs
    env.reset()
    calls = max(1, STEPS // n)

    def run() -> None:
        if fused:
            for _ in range(calls):
                env.step_sampled()
        else:
            for _ in range(calls):
                env.step(env.sample_actions())

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    seconds = benchmark.stats.stats.min if benchmark.stats else 1.0
    benchmark.extra_info.update(
        **info,
        envs=n,
        fused=fused,
        env_steps=calls * n,
        env_steps_per_s=round(calls * n / seconds),
    )
    return calls * n / seconds
