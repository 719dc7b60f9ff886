"""Progress on stderr for long commands (`index`, `embed`, `copy`, `eval`): one task per
source, phase or run. On a terminal, a live bar, erased when the work ends (the summary
follows). Elsewhere (a pipe, a log, CI), a line once a task has run for a second, then one
every ten seconds whether or not work arrived since (a batch of embeddings can take a minute
on a slow machine), and a last one with its rate when it ends.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from mindex.textsafe import markup_escape as escape

if TYPE_CHECKING:
    from rich.console import Console

FIRST_LINE = 1.0  # seconds before a task without a terminal says anything
EVERY = 10.0  # seconds between its lines afterwards
RECENT = 30.0  # seconds of history the time left is estimated from


@dataclass
class _Task:
    started: float
    unit: str
    said: float | None = None  # when the last line was printed
    done: int = 0
    total: int = 0
    finished: bool = False
    # (time, done) when work arrived: the time left comes from the recent rate, not the
    # average since the start (embedding goes shortest text first, so early batches are fast).
    samples: deque[tuple[float, int]] = field(default_factory=deque)

    def recent_rate(self, now: float, window: float) -> float | None:
        """Items per second over the last `window` seconds up to now (longer when no work
        arrived in that window), or None before any work is done."""
        start = self.samples[0]
        for sample in self.samples:
            if sample[0] > now - window:
                break
            start = sample
        elapsed, done = now - start[0], self.done - start[1]
        return done / elapsed if elapsed > 0 and done > 0 else None


class IndexProgress:
    """Items done per task (files per source, chunks embedded, rows copied, queries per run)
    with rate and time left; silent when disabled. A task named `... embedding` counts chunks,
    `keyword lists` (the lists of best chunks made at the end of an index run) words."""

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
                transient=True,
                redirect_stdout=False,  # stdout is the command's answer, never the bar's
            )
        self.ids: dict[str, Any] = {}
        self.tasks: dict[str, _Task] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def update(self, name: str, done: int, total: int) -> None:
        """Progress callback for `Index.index`, `Index.embed`, `copy_index` and eval runs."""
        if not self.enabled:
            return
        with self._lock:
            now = time.monotonic()
            task = self.tasks.get(name)
            if task is None:
                unit = "chunks" if name.endswith("embedding") else "words" if name == "keyword lists" else self.unit
                task = self.tasks[name] = _Task(now, unit)
                if self.live:
                    self.ids[name] = self.progress.add_task(name, total=total, unit=unit)
            task.done, task.total = done, total
            task.samples.append((now, done))
            while len(task.samples) > 2 and task.samples[1][0] <= now - 4 * RECENT:
                task.samples.popleft()
            if self.live:
                self.progress.update(self.ids[name], completed=done, total=total)
                return
            if done >= total and not task.finished:
                task.finished = True  # all done, or nothing to do (0 of 0: no line, then or later)
                if total and now - task.started >= self.first_line:
                    self._say(name, task, now)
            else:
                self._say_if_due(name, task, now)

    def _tick(self) -> None:
        """Without a terminal: a line for every running task that is due one, on time."""
        while not self._stop.wait(max(0.05, min(self.first_line, self.every, 1.0) / 4)):
            with self._lock:
                now = time.monotonic()
                for name, task in self.tasks.items():
                    if not task.finished:
                        self._say_if_due(name, task, now)

    def _say_if_due(self, name: str, task: _Task, now: float) -> None:
        elapsed = now - task.started
        if elapsed >= self.first_line and (task.said is None or now - task.said >= self.every):
            self._say(name, task, now)

    def _say(self, name: str, task: _Task, now: float) -> None:
        task.said = now
        elapsed = now - task.started
        if task.finished:
            rate = task.done / elapsed if elapsed > 0 else 0.0
            line = f"{name}: {task.done:,} {task.unit} in {elapsed:.1f} s ({rate:,.0f} {task.unit}/s)"
        else:
            share = task.done / task.total if task.total else 0.0
            recent = task.recent_rate(now, RECENT)
            if recent is None:
                line = f"{name}: {task.done:,}/{task.total:,} {task.unit} ({share:.0%}), {elapsed:.0f} s so far"
            else:
                left = (task.total - task.done) / recent
                line = (f"{name}: {task.done:,}/{task.total:,} {task.unit} ({share:.0%}), "
                        f"{recent:,.{0 if recent >= 10 else 1}f} {task.unit}/s, about {left:.0f} s left")
        self.console.print(escape(line), highlight=False, soft_wrap=True)

    def __enter__(self) -> IndexProgress:
        if self.live:
            self.progress.start()
        elif self.enabled:
            self._ticker = threading.Thread(target=self._tick, name="mindex-progress", daemon=True)
            self._ticker.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self.live:
            self.progress.stop()
