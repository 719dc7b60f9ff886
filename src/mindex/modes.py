"""The search modes, in a module of their own so the CLI can offer them without loading more."""

MODES = ("keyword", "semantic", "hybrid")
