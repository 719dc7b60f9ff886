"""`python -m mindex` runs the CLI."""

from mindex.serve.cli import main

main()
