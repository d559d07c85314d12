"""Pictures of games and results for people: SVG (``svg``), HTML pages and tables (``html``),
text and plots. Every function here reads only the public face of games, positions and results,
and finds a game's own picture through the registry (``genial.registry``): the games' pictures
live in their packages (``genial.board.svg``, ``.text``, ``.pictures``; ``genial.cards.svg``),
drawn with the kit they share (``genial.render.kit``, which imports no game). Nothing below
imports this package but the kit and the results' lazy ``_repr_html_`` hooks."""
