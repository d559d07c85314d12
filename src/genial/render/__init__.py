"""Pictures of games and results for people: text (``str(game)``) and plots. Every function here
reads only the public face of games, positions and results; nothing below imports this package
except the lazy hooks ``Game.__str__`` and ``OpeningAnalysis.plot``."""
