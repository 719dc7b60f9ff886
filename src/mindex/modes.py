"""Choices and defaults the CLI offers before it loads the modules that use them: the search
modes, the kinds of a change, and how sure a call in the code graph must be to be listed."""

MODES = ("keyword", "semantic", "hybrid")

# The kinds a change in release notes is classified as (`changelog search --kind`).
CHANGE_KINDS = ("added", "changed", "fixed", "breaking", "deprecated", "security", "removed", "performance", "docs")

# What `graph callers`/`callees` (and their MCP tools) list by default: a call resolved only
# by a name that three or more definitions share (0.5/N < 0.2) is a guess, and a common name
# (`get`: 17 definitions in Flask) buried the answer under dozens of lines.
DEFAULT_MIN_CONFIDENCE = 0.2
