"""Progress on stderr for long commands (`index`, `embed`, `eval`): one task per source, phase
or run. On a terminal, a live bar; elsewhere (a pipe, a log, CI), a line when a task has run
for a second, then one every ten seconds, and a last one with its rate when it ends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import TracebackType

from typing import TYPE_CHECKING, Any

from mindex.textsafe import markup_escape as escape

if TYPE_CHECKING:
    from rich.console import Console

FIRST_LINE = 1.0  # seconds before a task without a terminal says anything
EVERY = 10.0  # seconds between its lines afterwards


@dataclass
class _Task:
    started: float
    unit: str
    said: float | None = None  # when the last line was printed
    done: int = 0
    total: int = 0


class IndexProgress:
    """Items done per task (files per source, chunks embedded, queries per run) with rate and
    time left; silent when disabled. A task named `... embedding` counts chunks."""

    def __init__(self, console: Console, enabled: bool = True, unit: str = "files",
                 first_line: float = FIRST_LINE, every: float = EVERY) -> None:
        self.console, self.enabled, self.unit = console, enabled, unit
        self.first_line, self.every = first_line, every
        self.live = enabled and console.is_terminal
        self.progress: Any = None
        if self.live:  # rich's bar is loaded only for a terminal
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=False,
            )
        self.ids: dict[str, Any] = {}
        self.tasks: dict[str, _Task] = {}

    def update(self, name: str, done: int, total: int) -> None:
        """Progress callback for `Index.index`, `Index.embed` and eval runs."""
        if not self.enabled:
            return
        task = self.tasks.get(name)
        if task is None:
            unit = "chunks" if name.endswith("embedding") else self.unit
            task = self.tasks[name] = _Task(time.monotonic(), unit)
            if self.live:
                self.ids[name] = self.progress.add_task(name, total=total, unit=unit)
        task.done, task.total = done, total
        if self.live:
            self.progress.update(self.ids[name], completed=done, total=total)
            return
        now = time.monotonic()
        elapsed = now - task.started
        if done >= total and total:
            if elapsed >= self.first_line:
                self._say(name, task, elapsed, finished=True)
            task.said = now
        elif elapsed >= self.first_line and (task.said is None or now - task.said >= self.every):
            self._say(name, task, elapsed, finished=False)
            task.said = now

    def _say(self, name: str, task: _Task, elapsed: float, finished: bool) -> None:
        rate = task.done / elapsed if elapsed > 0 else 0.0
        if finished:
            line = f"{name}: {task.done:,} {task.unit} in {elapsed:.1f} s ({rate:,.0f} {task.unit}/s)"
        else:
            share = task.done / task.total if task.total else 0.0
            left = (task.total - task.done) / rate if rate > 0 else None
            eta = f", about {left:.0f} s left" if left is not None else ""
            line = f"{name}: {task.done:,}/{task.total:,} {task.unit} ({share:.0%}), {rate:,.0f} {task.unit}/s{eta}"
        self.console.print(escape(line), highlight=False, soft_wrap=True)

    def __enter__(self) -> IndexProgress:
        if self.live:
            self.progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.live:
            self.progress.stop()
