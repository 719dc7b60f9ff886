"""The `mindex` command's front door: hand the command to this index's background process
when one is running, else run it here and start one for the next call.

A command that needs the model (`memory save`, a hybrid `search`, the session-start hook)
spends 0.5-0.8 s of CPU loading it and the index before any work; hooks and scripts call
the CLI many times a session. The background process (`mindex.serve.background`) keeps both
loaded: it receives the command line, the working folder, the environment and this
process's standard input, output and error (passed over a Unix socket as file descriptors),
runs the same CLI code on them and sends back the exit code. Output goes straight to the
terminal or pipe this process was given, so colours, progress, `--json` and exit codes are
what an in-process run gives.

Only commands that answer quickly from a loaded index go there (`SERVED`); everything else,
a verbose run, `--help`, and every call when `MINDEX_BACKGROUND=0` runs here as before. This
module imports only the standard library: the point is a start-up of a few milliseconds.
"""

from __future__ import annotations

import os
import sys

# Commands (and, for groups, the subcommands) that the background process runs.
SERVED: dict[str, frozenset[str] | None] = {
    **dict.fromkeys(("search", "locate", "context", "get", "grep", "symbols", "graph", "status", "sources")),
    "memory": frozenset({"save", "search", "list", "recent", "show", "edit", "forget"}),
    "knowledge": frozenset({"add", "query"}),
    "hook": frozenset({"session-start", "pre-compact", "session-end"}),
    "changelog": frozenset({"search", "entity", "release", "since", "synergies", "synergy", "products"}),
}
# What a background process was started with and must match: the settings come from these
# variables and files, the text encoding from the locale ones.
KEYED = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONIOENCODING",
         "PYTHONUTF8", "PYTHONPATH")
IDLE_SECONDS = 900.0  # a background process exits after this long without a command
RUNNING, STALE, GO = b"R", b"S", b"G"  # it will run the command, or will not; the caller's go
WAIT_SECONDS = 3.0  # for the background process to take the command, else it runs in-process


def main() -> None:
    """Console-script entry point."""
    # OpenBLAS's worker threads (numpy's) spin on the other core for about 2^28 cycles after
    # they start and after each call before they sleep: importing numpy cost 0.16-0.25 s of
    # CPU instead of 0.10. The shortest wait keeps the threads, not the spinning; set for the
    # background process and MCP server this starts too, unless the user set it.
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    args = sys.argv[1:]
    place = socket_path(args) if served(args) else None
    if place is not None:
        code = forward(place, args)
        if code is not None:
            sys.exit(code)
    from mindex.serve.cli import main as run_here

    try:
        run_here()
    except SystemExit as done:
        if place is not None and done.code in (0, None):
            start(place)
        raise
    if place is not None:
        start(place)


def served(args: list[str]) -> bool:
    """Whether the command line is one the background process runs: a `SERVED` command,
    no `-v`, no `--help`, `--version` or completion, and the background not turned off."""
    if os.environ.get("MINDEX_BACKGROUND", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    if not hasattr(os, "getuid") or not hasattr(os, "posix_spawn"):  # Windows: every command runs here
        return False
    if "_MINDEX_COMPLETE" in os.environ:
        return False
    words = iter(args)
    for word in words:
        if word == "--db":
            next(words, None)
        elif word.startswith("--db="):
            continue
        elif word.startswith("-"):
            return False  # -v, --help, --version
        else:
            subcommands = SERVED.get(word, frozenset())
            if subcommands is None:
                break
            sub = next((w for w in words if not w.startswith("-")), None)
            if sub not in subcommands:
                return False
            break
    else:
        return False
    return not any(arg in ("-h", "--help") for arg in args)


def idle_seconds() -> float:
    """How long a background process waits for a command before it exits:
    `MINDEX_BACKGROUND_IDLE` (at least 1), else `IDLE_SECONDS`."""
    try:
        return max(1.0, float(os.environ.get("MINDEX_BACKGROUND_IDLE", IDLE_SECONDS)))
    except ValueError:
        return IDLE_SECONDS


def folder() -> str | None:
    """The user's private folder for the sockets, made if missing; None when it is not
    safely private (another owner, open to others, a symbolic link)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        place = os.path.join(runtime, "mindex")
    else:
        temporary = next((os.environ[name] for name in ("TMPDIR", "TEMP", "TMP") if os.environ.get(name)), "/tmp")
        place = os.path.join(temporary, f"mindex-{os.getuid()}")
    try:
        os.mkdir(place, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        info = os.lstat(place)
    except OSError:
        return None
    if info.st_mode & 0o170000 != 0o040000 or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return place


def namespaces() -> tuple[str, ...]:
    """The mount and user namespaces this process lives in: a process in a sandbox or a
    container (a read-only project, other files) must not be served by one outside it."""
    found = []
    for kind in ("mnt", "user"):
        try:
            found.append(os.readlink(f"/proc/self/ns/{kind}"))
        except OSError:
            found.append("")
    return tuple(found)


def socket_path(args: list[str]) -> str | None:
    """The socket of the background process for this command's index and settings: one per
    project (or `--db`), `MINDEX_*` variables, user config, interpreter and namespaces; None when the
    working folder is gone or no private folder can be had. (Which process a command goes to
    is a matter of speed only: the process reads the settings and the index from the
    command's own folder and environment.)"""
    import zlib

    try:
        cwd = os.getcwd()
    except OSError:
        return None
    db = None
    for n, arg in enumerate(args):
        if arg == "--db" and n + 1 < len(args):
            db = os.path.abspath(args[n + 1])
        elif arg.startswith("--db="):
            db = os.path.abspath(arg[5:])
    from mindex import __version__
    from mindex.roots import project_root

    variables = sorted((key, value) for key, value in os.environ.items() if key.startswith("MINDEX_") or key in KEYED)
    key = ascii((project_root(cwd), db, variables, sys.executable, __version__, os.getuid(), namespaces())).encode()
    place = folder()
    if place is None:
        return None
    name = f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}{len(key):x}.sock"
    path = os.path.join(place, name)
    return path if len(path.encode()) < 100 else None  # a Unix socket's path is at most 107 bytes


def forward(path: str, args: list[str]) -> int | None:
    """Run the command in the background process; its exit code, or None when there is no
    process to run it (none listening, or one that declined: stale, or another version)."""
    import _socket

    from mindex import __version__

    try:
        umask = os.umask(0o022)
        os.umask(umask)
        request = ascii({"argv": args, "cwd": os.getcwd(), "env": dict(os.environ), "umask": umask,
                         "executable": sys.executable, "version": __version__, "namespaces": namespaces()}).encode()
    except OSError:
        return None
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        # A process still loading, or busy with another caller's command (one paged into
        # `less`, say), must not hold this one up: past WAIT_SECONDS it runs here. It runs
        # there only after this side says go, so it never runs in both.
        # The descriptors go with the go, not the request: a request left unread in a busy
        # process's queue must not hold this process's output open after it ran here.
        conn.settimeout(WAIT_SECONDS)
        conn.connect(path)
        conn.sendall(len(request).to_bytes(4, "big") + request)
        if conn.recv(1) != RUNNING:
            conn.close()
            return None  # declined (stale, another version or namespace): run it here
        descriptors = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2))
        conn.sendmsg([GO], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, descriptors)])
        conn.settimeout(None)
    except OSError:  # nothing listening, or no answer in time
        conn.close()
        return None
    return _wait(conn)


def _wait(conn: object) -> int | None:
    """The exit code the background process sends; Ctrl-C (or `kill`) here interrupts the
    command there, as it would interrupt it here."""
    import _signal  # type: ignore[import-not-found]  # `signal` without its enums (2 ms)

    def interrupt(signum: int, frame: object) -> None:
        try:
            conn.send(b"i")  # type: ignore[attr-defined]
        except OSError:
            pass

    previous = {sig: _signal.signal(sig, interrupt) for sig in (_signal.SIGINT, _signal.SIGTERM)}
    answer = b""
    try:
        while True:
            try:
                data = conn.recv(64)  # type: ignore[attr-defined]
            except InterruptedError:
                continue
            except OSError:
                break
            if not data:
                break
            answer += data
            if answer.endswith(b"\n"):
                break
    finally:
        for sig, handler in previous.items():
            _signal.signal(sig, handler)
        conn.close()  # type: ignore[attr-defined]
    text = answer.decode("ascii", "replace").strip()
    if text.lstrip("-").isdigit():
        return int(text)
    sys.stderr.write("error INTERNAL: mindex's background process stopped before the command finished; "
                     "run the command again (MINDEX_BACKGROUND=0 runs it without one)\n")
    return 1


def start(path: str) -> None:
    """Start the background process for `path` (it exits at once if another holds it): its
    own session, no terminal, stdin and output on /dev/null. `posix_spawn`, not `subprocess`
    (whose import alone costs the command 5 ms): descriptors Python opened are not inherited.
    `-P`: the working folder, a user's project, is not put first on the module path, where a
    `json.py` or an `email/` of the project would stand in for the standard library's."""
    null = os.devnull
    actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
        (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0), (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0)]
    # What this process inherited beyond 0-2 (a pipe a caller reads to its end, say) must
    # not be held open for the background process's life.
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(listing)
        except OSError:
            continue
        actions += [(os.POSIX_SPAWN_CLOSE, int(name)) for name in names
                    if name.isdigit() and int(name) > 2 and _inheritable(int(name))]
        break
    try:
        os.posix_spawn(sys.executable, [sys.executable, "-P", "-m", "mindex.serve.background", path], os.environ,
                       file_actions=actions, setsid=True)
    except (OSError, ValueError):
        pass


def _inheritable(fd: int) -> bool:
    try:
        return os.get_inheritable(fd)
    except OSError:  # the listing's own descriptor, closed by now
        return False
