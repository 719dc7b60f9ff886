"""Logging that costs nothing until something logs: importing `logging` and configuring it
cost every command about 4 ms of start-up, and most commands never log.

The CLI says how verbose it wants to be (`configure`); the standard library's logging is
imported and set up the first time a mindex logger is used, or when a module whose
library logs on its own (the PostgreSQL driver) calls `ready()`.
"""

from __future__ import annotations

import sys
from typing import Any

_pending: int | None = None  # the verbosity the CLI asked for, not applied yet


def configure(verbose: int) -> None:
    """Log WARNING (0), INFO (1) or DEBUG (2 or more) to stderr as `LEVEL message`: now when
    verbose, else when the first logger is used."""
    global _pending
    _pending = verbose
    if verbose:
        ready()


def ready() -> None:
    """Apply the configuration the CLI asked for, if it has not been applied yet."""
    global _pending
    if _pending is None:
        return
    import logging

    verbose, _pending = _pending, None
    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(message)s", stream=sys.stderr)
    if not verbose:
        # The PostgreSQL driver and its pool log each dead connection they drop and each
        # reconnection tried (15 lines when the server went away mid-index); the error says it once.
        logging.getLogger("psycopg").setLevel(logging.ERROR)


class LazyLogger:
    """`logging.getLogger(name)`, looked up (and logging set up) the first time it is used."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attr: str) -> Any:
        import logging

        ready()
        return getattr(logging.getLogger(self.name), attr)


def get_logger(name: str) -> Any:
    """A logger for `name` that costs nothing until it logs."""
    return LazyLogger(name)
