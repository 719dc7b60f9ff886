"""A rich progress bar on stderr for long commands (`index`, `eval`), one task per source or run."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class IndexProgress:
    """Shows items done per task (files per source, queries per run) with an ETA; silent when
    disabled or piped."""

    def __init__(self, console: Console, enabled: bool = True, unit: str = "files") -> None:
        self.enabled = enabled and console.is_terminal
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(unit),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self.tasks: dict[str, TaskID] = {}

    def update(self, source: str, done: int, total: int) -> None:
        """Progress callback for `Index.index`."""
        if not self.enabled:
            return
        if source not in self.tasks:
            self.tasks[source] = self.progress.add_task(source, total=total)
        self.progress.update(self.tasks[source], completed=done, total=total)

    def __enter__(self) -> IndexProgress:
        if self.enabled:
            self.progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.enabled:
            self.progress.stop()
