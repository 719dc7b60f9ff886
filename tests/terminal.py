"""Run the real `mindex` command on a pseudo-terminal, as a person types it at a shell: the
process's stdin, stdout and stderr are the terminal, which is also its controlling terminal,
so Ctrl-C written to it interrupts the process as a keyboard would."""

from __future__ import annotations

import fcntl
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

HIDE_CURSOR, SHOW_CURSOR = b"\x1b[?25l", b"\x1b[?25h"
MINDEX = shutil.which("mindex", path=os.path.dirname(sys.executable)) or "mindex"


@dataclass
class Typed:
    """What a command typed at a terminal printed (stdout and stderr together, as a terminal
    shows them) and how it ended."""

    output: bytes
    code: int

    @property
    def text(self) -> str:
        """The output as text, colours and cursor moves left out."""
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", self.output.decode("utf-8", "replace"))

    @property
    def cursor_restored(self) -> bool:
        """The cursor is visible at the end: every hide was followed by a show."""
        return self.output.rfind(SHOW_CURSOR) >= self.output.rfind(HIDE_CURSOR)


def _controlling_terminal() -> None:  # pragma: no cover - runs in the child
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def type_command(args: Sequence[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120.0,
                 interrupt_when: Callable[[bytes], bool] | None = None, columns: int = 120,
                 then: Callable[[bytes], None] | None = None) -> Typed:
    """Run `mindex ARGS` on a new pseudo-terminal of `columns` columns and read everything it
    prints until it exits. `interrupt_when(output so far)` true: Ctrl-C is typed (once).
    `then(output so far)` is called on each read (to edit files while a watcher runs)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    environment = {key: value for key, value in (env or os.environ).items()
                   if key not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "COLUMNS", "LINES")}
    environment["TERM"] = "xterm-256color"
    proc = subprocess.Popen([MINDEX, *args], cwd=cwd, env=environment, stdin=slave, stdout=slave, stderr=slave,
                            preexec_fn=_controlling_terminal, close_fds=True)
    os.close(slave)
    output, interrupted, deadline = bytearray(), False, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: every process holding the terminal is gone
                    break
                if not data:
                    break
                output += data
                if then is not None:
                    then(bytes(output))
            if interrupt_when is not None and not interrupted and interrupt_when(bytes(output)):
                os.write(master, b"\x03")
                interrupted = True
            if not ready and proc.poll() is not None:
                break
        else:
            proc.kill()
            raise AssertionError(f"mindex {' '.join(args)} ran past {timeout} s; it printed:\n"
                                 + output.decode("utf-8", "replace")[-3000:])
        return Typed(bytes(output), proc.wait(timeout=30))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
