"""Progress without a terminal: lines on time, whatever the size of the batches, and a time
left estimated from the recent rate."""

from __future__ import annotations

import io
import time

from rich.console import Console

from mindex.serve.progress import IndexProgress, _Task


def test_lines_come_on_time_while_a_long_batch_runs() -> None:
    stream = io.StringIO()
    console = Console(file=stream, width=200)
    with IndexProgress(console, first_line=0.1, every=0.2, unit="chunks") as progress:
        progress.update("embedding", 0, 512)
        deadline = time.monotonic() + 5
        while stream.getvalue().count("\n") < 3 and time.monotonic() < deadline:
            time.sleep(0.05)  # one batch of 256 still embedding: no callback comes
        progress.update("embedding", 512, 512)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 4, lines
    assert all(line.startswith("embedding: 0/512 chunks (0%), ") and line.endswith("s so far") for line in lines[:3])
    assert lines[-1].startswith("embedding: 512 chunks in ")


def test_time_left_follows_the_recent_rate_not_the_average() -> None:
    task = _Task(started=0.0, unit="chunks")
    task.done, task.total = 600, 1000
    # 500 short texts in the first 10 s, then 100 long ones in the next 90 s
    task.samples.extend([(0.0, 0), (10.0, 500), (40.0, 530), (100.0, 600)])
    rate = task.recent_rate(100.0, 30.0)
    assert rate is not None and abs(rate - 70 / 60) < 1e-9  # since the last sample 30 s back or more
    assert task.done / 100.0 == 6.0  # the average would have said 67 s left, not 343


def test_a_task_that_ends_says_its_rate_once() -> None:
    stream = io.StringIO()
    console = Console(file=stream, width=200)
    with IndexProgress(console, first_line=0.0, every=60.0) as progress:
        progress.update("docs", 0, 3)
        progress.update("docs", 3, 3)
        progress.update("docs", 3, 3)
    ended = [line for line in stream.getvalue().splitlines() if " files in " in line]
    assert len(ended) == 1 and ended[0].startswith("docs: 3 files in ") and ended[0].endswith("files/s)")


def test_the_keyword_lists_count_words() -> None:
    stream = io.StringIO()
    console = Console(file=stream, width=200)
    with IndexProgress(console, first_line=0.0, every=0.1) as progress:
        progress.update("keyword lists", 0, 240)
        deadline = time.monotonic() + 5
        while not stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        progress.update("keyword lists", 240, 240)
    assert stream.getvalue().startswith("keyword lists: 0/240 words (0%)")


def test_a_task_with_nothing_to_do_says_nothing_while_another_runs() -> None:
    """`changelog ingest` with every release file unchanged, then 2,462 changes to embed:
    the source's task (0 of 0 files) printed "changelog: 0/0 files (0%), 11 s so far" every
    ten seconds beside the embedding's lines."""
    stream = io.StringIO()
    with IndexProgress(Console(file=stream, width=200), first_line=0.1, every=0.2) as progress:
        progress.update("changelog", 0, 0)
        progress.update("changelog embedding", 0, 100)
        deadline = time.monotonic() + 5
        while stream.getvalue().count("\n") < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        progress.update("changelog embedding", 100, 100)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 2 and all(line.startswith("changelog embedding: ") for line in lines), lines
