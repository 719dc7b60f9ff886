"""`python -m mindex` runs the CLI."""

from mindex.serve.front import main

main()
