"""Bridges from genial to other libraries, each an optional extra imported on its own.

- ``genial.integrations.pettingzoo`` (extra ``genial-sim[rl]``): PettingZoo AEC environments for
  the board game, its variants and the card game (``docs/rl.md``).
- ``genial.integrations.openspiel`` (extra ``genial-sim[openspiel]``): both games
  registered with OpenSpiel as ``genial_board`` and ``genial_cards``, and ``GenialBot``
  (``docs/openspiel.md``).

Importing this package imports none of them.
"""
