"""The card game, *Einfach Genial: Das Kartenspiel* (docs/rules.md §5).

In progress: the compiled kernel (``genial.cards._kernel``) plays every rule of §5 and agrees with
the pure-Python reference in the tests at every step; the ``CardGame`` API, its batches and its
command line come next.
"""
