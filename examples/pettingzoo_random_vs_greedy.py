"""One game of Ingenious through the PettingZoo environment: a random agent against the
kernel's greedy policy.

Run it with ``python examples/pettingzoo_random_vs_greedy.py [seed]`` (needs
``pip install 'genial-sim[rl]'``). The random agent samples its action space under the action
mask; the greedy agent asks the environment for the move of the built-in greedy policy
(``env.unwrapped.choose("greedy")``). Bonus plays and the swap decision are ordinary steps of the
agent whose turn it is.
"""

from __future__ import annotations

import sys
from typing import Any

from genial.integrations.pettingzoo import env as make_env


def main(seed: int = 1, *, game: str = "board", verbose: bool = True) -> dict[str, Any]:
    """Play one game (``player_0`` random, ``player_1`` greedy) and return its result: the
    final rewards, ranks and scores, and the number of steps each agent took."""
    env = make_env(game, players=2)
    env.reset(seed=seed)
    env.action_space("player_0").seed(seed)
    steps = dict.fromkeys(env.possible_agents, 0)
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    ranks: dict[str, int] = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        rewards[agent] += reward
        if terminated or truncated:
            ranks[agent] = info["rank"]
            action = None
        elif agent == "player_0":
            action = env.action_space(agent).sample(observation["action_mask"])
        else:
            action = env.unwrapped.choose("greedy")
        if action is not None:
            steps[agent] += 1
        env.step(action)
    final = env.unwrapped.game
    result = {
        "rewards": rewards,
        "ranks": ranks,
        "scores": final.scores.tolist(),
        "steps": steps,
        "truncated": bool(getattr(final, "truncated", False)),
    }
    if verbose:
        print(final)
        for seat, (agent, who) in enumerate((("player_0", "random"), ("player_1", "greedy"))):
            print(
                f"{agent} ({who}): reward {rewards[agent]:+.0f}, rank {ranks[agent]}, "
                f"{steps[agent]} steps, counters {result['scores'][seat]}"
            )
    env.close()
    return result


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
