"""Bridges from genial to other libraries, each an optional extra imported on its own.

- ``genial.integrations.pettingzoo`` (extra ``genial-sim[rl]``): PettingZoo AEC environments for
  the board game, its variants and the card game (``docs/rl.md``).

Importing this package imports none of them.
"""
