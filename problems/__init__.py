"""Problem families with exact constants (quadratic games, compositional problems, ...)."""
