"""`python -m mindex.serve` runs the CLI (used by tests and where the script is not on PATH)."""

from mindex.serve.front import main

main()
