"""The background process of one index: it keeps the index, the model and the CLI's modules
loaded and runs the commands `mindex.serve.front` hands it, one at a time.

`python -m mindex.serve.background SOCKET` is started by the front door after a command ran
without one (stdin, stdout and stderr closed, a session of its own), with that command's
working folder and environment. It

- holds `SOCKET.lock` for its life (a second one started for the same socket exits at once),
  listens on SOCKET in the user's private folder and answers only the same user;
- loads what a first command needs (`Engine.warm`) while the first connection waits;
- takes a command only when the caller, having waited at most `WAIT_SECONDS`, says go and
  passes its descriptors (a caller that stopped waiting runs it itself; never both);
- runs each command as the CLI would in its own process: the caller's argv, working folder,
  environment and umask, and the caller's stdin, stdout and stderr on descriptors 0, 1 and 2;
  then sends the exit code. Ctrl-C at the caller interrupts the command here;
- keeps one index per file it opened, and opens it again when the settings changed, the
  file was replaced or its writability changed; writes take the same locks as any other
  process, and the index sees other processes' writes as a long-running MCP server does;
- declines a caller in other mount or user namespaces (a sandbox, a container: it may see
  other files, or see them read-only); declines and exits when its code changed on disk
  since it started, or another process took its socket; exits after `MINDEX_BACKGROUND_IDLE` seconds without a command (900).
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mindex.serve.front import GO, RUNNING, STALE, WAIT_SECONDS, idle_seconds, namespaces

if TYPE_CHECKING:
    from collections.abc import Iterator

    from mindex.config import Settings
    from mindex.index import Index

REQUEST_LIMIT = 4 << 20  # bytes of a command line and environment


class Indexes:
    """The indexes commands opened, kept open between commands: one per index file (or
    server), with the settings it was opened with."""

    def __init__(self) -> None:
        self.kept: dict[str, tuple[Index, str, tuple[Any, ...] | None]] = {}

    @staticmethod
    def _identity(db: Path | str) -> tuple[Any, ...] | None:
        """What must stay the same for a kept index to be used again: the file (not one put
        in its place) and whether it can be written."""
        if isinstance(db, str):
            return None
        from mindex.store.sqlite.opening import read_only_file

        info = db.stat()
        return info.st_dev, info.st_ino, read_only_file(db)

    @contextlib.contextmanager
    def open(self, db: Path | str, settings: Settings, create: bool) -> Iterator[Index]:
        """`State.open` for this process: the kept index, else a new one kept in its place
        (settings changed, the file replaced or its writability changed: the old one closed)."""
        from mindex.index import Index

        key, wanted = str(db), repr(settings)
        held = self.kept.get(key)
        if held is not None:
            try:
                same = held[1] == wanted and held[2] == self._identity(db)
            except OSError:
                same = False
            if not same:
                del self.kept[key]
                held[0].close()
                held = None
        if held is None:
            index = Index.with_settings(db, settings, create=create)
            try:
                held = self.kept[key] = (index, wanted, self._identity(db))
            except OSError:
                index.close()
                raise
        yield held[0]

    def close(self) -> None:
        for index, _, _ in self.kept.values():
            with contextlib.suppress(Exception):
                index.close()
        self.kept.clear()


def _sources() -> dict[str, int]:
    """The modification times of the loaded mindex modules' files."""
    found: dict[str, int] = {}
    _track(found)
    return found


def _track(sources: dict[str, int]) -> None:
    """Add the mindex modules loaded since `sources` was taken (a command imports its own
    modules when first run), so that an edit to one of them is seen too: an edited
    `serve/opscli.py` went on answering from the code loaded before the edit."""
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path and path not in sources and (getattr(module, "__name__", "") or "").startswith("mindex"):
            with contextlib.suppress(OSError):
                sources[path] = os.stat(path).st_mtime_ns


def _changed(sources: dict[str, int]) -> bool:
    for path, mtime in sources.items():
        try:
            if os.stat(path).st_mtime_ns != mtime:
                return True
        except OSError:
            return True
    return False


class Server:
    """One background process: its socket, its kept indexes, its loop."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.indexes = Indexes()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sources: dict[str, int] = {}
        self.idle = idle_seconds()

    def bind(self) -> bool:
        """Take the socket: False when another process holds it."""
        import fcntl

        self.lock = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        os.ftruncate(self.lock, 0)
        os.write(self.lock, f"{os.getpid()}\n".encode())  # who holds it, for `kill`
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        previous = os.umask(0o177)
        try:
            self.listener.bind(self.path)
        finally:
            os.umask(previous)
        self.listener.listen(16)
        self.inode = os.stat(self.path).st_ino
        return True

    def warm(self) -> None:
        """Import the CLI and open and warm the index the starting command used."""
        from importlib import import_module

        from mindex.serve import clikit

        import_module("mindex.serve.cli")  # now, not at the first command (its commands load at their use)

        clikit.State.opener = self.indexes.open
        with contextlib.suppress(Exception):
            from mindex.config import load_settings, resolve_db_path

            settings = load_settings()
            db = resolve_db_path(settings)
            if isinstance(db, str) or db.exists():
                with self.indexes.open(db, settings, create=False) as index:
                    index.warm()
        self.sources = _sources()
        os.chdir("/")  # each command runs in its own folder; between them, hold none busy

    def ours(self) -> bool:
        """Whether the socket file is still the one this process bound."""
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def serve(self) -> None:
        last = time.monotonic()
        self.listener.settimeout(min(60.0, self.idle))
        while True:
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                if time.monotonic() - last >= self.idle or not self.ours():
                    return
                continue
            with conn:
                conn.settimeout(None)
                try:
                    if not self.answer(conn):
                        return
                except KeyboardInterrupt:  # the caller's Ctrl-C, come as the command ended
                    pass
            last = time.monotonic()

    def answer(self, conn: socket.socket) -> bool:
        """Run one command; False when this process should stop."""
        import ast

        from mindex import __version__

        if hasattr(socket, "SO_PEERCRED"):  # elsewhere (macOS) the socket's mode 0600 is the check
            peer = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            if struct.unpack("3i", peer)[1] != os.getuid():
                return True
        fds: list[int] = []
        try:
            conn.settimeout(WAIT_SECONDS)  # the caller sends at once; one that does not is dropped
            body = b""
            while len(body) < 4 or len(body) < 4 + int.from_bytes(body[:4], "big"):
                if len(body) >= 4 and int.from_bytes(body[:4], "big") > REQUEST_LIMIT:
                    return True
                more = conn.recv(1 << 16)
                if not more:
                    return True
                body += more
            request = ast.literal_eval(body[4:].decode("ascii"))
            if not isinstance(request, dict):
                return True
            if request.get("namespaces") != namespaces():
                conn.sendall(STALE)  # a caller in another sandbox or container: it runs the command itself
                return True
            if (request.get("version") != __version__ or request.get("executable") != sys.executable
                    or not self.ours() or _changed(self.sources)):
                conn.sendall(STALE)
                return False
            conn.sendall(RUNNING)
            # The caller's go comes with its stdin, stdout and stderr; a caller that stopped
            # waiting sends neither (and runs the command itself), so nothing of its stays here.
            go, fds, _, _ = socket.recv_fds(conn, 1, 3)
            if go != GO or len(fds) != 3:
                return True
            conn.settimeout(None)
            owned, fds = fds, []
            code = run(request, owned, conn)
        except (OSError, ValueError, KeyError, TypeError, SyntaxError, MemoryError, RecursionError):
            return True
        finally:
            for fd in fds:
                os.close(fd)
        with contextlib.suppress(OSError):
            conn.sendall(f"{code}\n".encode())
            conn.shutdown(socket.SHUT_RDWR)  # wakes the thread that waits for a Ctrl-C
        _track(self.sources)
        return True


def run(request: dict[str, Any], fds: list[int], conn: socket.socket) -> int:
    """Run the command of `request` on the caller's descriptors; its exit code."""
    import _thread
    import traceback

    from mindex.serve import cli, clikit

    for fd, target in zip(fds, (0, 1, 2)):
        os.dup2(fd, target)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    os.umask(int(request["umask"]))
    encoding, errors = sys.__stdout__.encoding if sys.__stdout__ else "utf-8", "strict"
    sys.stdin = open(0, encoding=sys.__stdin__.encoding if sys.__stdin__ else encoding,  # noqa: SIM115
                     errors=sys.__stdin__.errors if sys.__stdin__ else errors, closefd=False)
    sys.stdout = open(1, "w", encoding=encoding, errors=errors, closefd=False, buffering=1 if os.isatty(1) else -1)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding=encoding, errors="backslashreplace", closefd=False, buffering=1)  # noqa: SIM115
    sys.argv = ["mindex", *request["argv"]]
    for console in (clikit.out, clikit.err):
        console.forget()  # type: ignore[attr-defined]  # made anew for this caller's terminal (or pipe) and width
    running = threading.Lock()
    done = False

    def watch() -> None:  # a byte or the caller's end: Ctrl-C there
        try:
            conn.recv(1)
        except OSError:
            pass
        with running:
            if not done:
                _thread.interrupt_main()

    threading.Thread(target=watch, name="mindex-caller", daemon=True).start()
    code = 0
    try:
        try:
            os.chdir(request["cwd"])
        except OSError as exc:
            sys.stderr.write(f"error CONFIG: cannot enter the working folder {request['cwd']}: {exc.strerror}\n")
            return 1
        cli.main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            sys.stderr.write(f"{exc.code}\n")
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as grep and rg do
        code = 141
    except BaseException:  # what an uncaught error prints in a process of its own
        traceback.print_exc()
        code = 1
    finally:
        with running:
            done = True
        _release()
    return code


def _release() -> None:
    """Flush what the command wrote and let go of the caller's descriptors."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.close(null)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python -m mindex.serve.background SOCKET (the mindex command starts it)")
    server = Server(sys.argv[1])
    try:
        if not server.bind():
            return
        server.warm()
        server.serve()
    finally:
        with contextlib.suppress(OSError):
            if server.ours():
                os.unlink(server.path)
        server.indexes.close()


if __name__ == "__main__":
    main()
