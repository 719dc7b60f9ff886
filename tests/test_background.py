"""The background process that answers the CLI warm (`mindex.serve.front`, `.background`):
the real `mindex` command, a real Unix socket, the real model. A command it answers prints
what the same command prints in a process of its own, on a pipe and on a terminal, with the
same exit code; writes land in the index; stdin reaches a hook; Ctrl-C interrupts; a process
that is gone or stale leaves the command to run in its own process."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from terminal import MINDEX, type_command

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A private runtime folder (short: a socket's path has a length limit); the background
    processes started in it are stopped at the end."""
    folder = Path(tempfile.mkdtemp(prefix="mxrt-"))
    yield folder
    for lock in folder.rglob("*.lock"):
        pid = lock.read_text().strip()
        if pid.isdigit():
            try:
                os.kill(int(pid), signal.SIGTERM)
            except ProcessLookupError:
                pass
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def project(tmp_path: Path, runtime: Path) -> Path:
    shutil.copytree(FIXTURES / "docs", tmp_path / "docs")
    env = {**os.environ, "MINDEX_BACKGROUND": "0"}
    for args in (["add", "docs"], ["index", "-q"]):
        subprocess.run([MINDEX, *args], cwd=tmp_path, env=env, check=True, capture_output=True, timeout=300)
    return tmp_path


def _env(runtime: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "MINDEX_BACKGROUND"}
    return {**env, "XDG_RUNTIME_DIR": str(runtime), "MINDEX_BACKGROUND_IDLE": "120", **extra}


def _run(cwd: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MINDEX, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def _served(cwd: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command that must be answered by the background process: its own process
    imports the front door only (`-X importtime` lists what it imported on stderr)."""
    done = _run(cwd, {**env, "PYTHONPROFILEIMPORTTIME": "1"}, *args, stdin=stdin)
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "mindex.serve.front" in imported
    assert "mindex.serve.cli" not in imported and "click" not in imported, "the command ran in its own process"
    stderr = "".join(line + "\n" for line in done.stderr.splitlines() if not line.startswith("import time:"))
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, stderr)


def _timeless(text: str) -> str:
    """Output without the time a search took."""
    return re.sub(r'(took\D{0,5})[\d.]+', r"\1#", re.sub(r"[\d.]+ ms", "# ms", text))


def _ready(runtime: Path, cwd: Path, env: dict[str, str], timeout: float = 120.0) -> None:
    """Wait until a background process listens in `runtime` and has loaded what it loads
    first (a command sent while it loads waits 3 s at most, then runs in its own process: on a
    busy machine the model can take longer)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if list(runtime.rglob("*.sock")):
            probe = _run(cwd, {**env, "PYTHONPROFILEIMPORTTIME": "1"}, "status")
            if "mindex.serve.cli" not in probe.stderr:
                return
        time.sleep(0.2)
    raise AssertionError("no background process answered")


def test_the_second_command_is_answered_warm_with_the_same_output_and_exit_codes(project: Path, runtime: Path) -> None:
    env = _env(runtime, MINDEX_EMBED__PROVIDER="onnx")
    plain = {**env, "MINDEX_BACKGROUND": "0"}
    subprocess.run([MINDEX, "embed"], cwd=project, env=plain, check=True, capture_output=True, timeout=300)
    first = _run(project, env, "search", "connection pool", "--json")  # in its own process; starts one
    assert first.returncode == 0, first.stderr
    _ready(runtime, project, env)
    for args in (["search", "connection pool"], ["search", "how do I limit connections", "--mode", "hybrid"],
                 ["status"], ["get", "zzzzzzzz"], ["get", "zzzzzzzz", "--json"], ["search", "pool", "--mode", "nope"]):
        alone, warm = _run(project, plain, *args), _served(project, env, *args)
        assert (warm.returncode, _timeless(warm.stdout), warm.stderr) == (
            alone.returncode, _timeless(alone.stdout), alone.stderr), args
    assert _run(project, plain, "get", "zzzzzzzz").returncode == 3
    # A save through it is written to the index (and its journal) and found by the next search,
    # from either kind of process; so is a save made by another process meanwhile.
    saved = _served(project, env, "memory", "save", "Retries back off exponentially with jitter", "--type", "decision")
    assert saved.returncode == 0, saved.stderr
    other = _run(project, plain, "memory", "save", "The walrus migration runs on Sundays", "--type", "progress")
    assert other.returncode == 0
    for run, run_env in ((_served, env), (_run, plain)):
        assert "exponentially with jitter" in run(project, run_env, "memory", "search", "retries backoff").stdout
        # the other process's entry and its vector (found by meaning alone)
        found = run(project, run_env, "memory", "search", "walrus migration day", "--mode", "semantic", "--json")
        assert "walrus migration" in found.stdout, found.stdout
    journal = "".join(p.read_text() for p in (project / ".mindex" / "memory").rglob("*.md"))
    assert "exponentially with jitter" in journal and "walrus migration" in journal


def test_a_project_whose_files_share_a_standard_module_name_is_still_served(project: Path, runtime: Path) -> None:
    """The background process starts in the user's working folder: a project holding a
    `json.py` (or an `importlib/`, as a copy of the standard library does) must not stand in
    for the standard library's, which would stop it at start, every time."""
    (project / "json.py").write_text("raise SystemExit('the project stood in for the json module')\n")
    (project / "importlib").mkdir()
    (project / "importlib" / "__init__.py").write_text("raise SystemExit('the project stood in for importlib')\n")
    env = _env(runtime, MINDEX_EMBED__PROVIDER="none")
    assert _run(project, env, "status").returncode == 0  # in its own process; starts one
    _ready(runtime, project, env, timeout=60)
    served = _served(project, env, "search", "connection pool", "--json")
    assert served.returncode == 0 and json.loads(served.stdout)["results"], served.stderr


def test_a_hook_reads_its_stdin_and_a_terminal_gets_colour(project: Path, runtime: Path) -> None:
    env = _env(runtime)
    plain = {**env, "MINDEX_BACKGROUND": "0"}
    _run(project, env, "status")
    _ready(runtime, project, env)
    payload = '{"session_id": "s-1", "cwd": "%s", "source": "startup", "hook_event_name": "SessionStart"}' % project
    alone = _run(project, plain, "hook", "session-start", stdin=payload)
    warm = _served(project, env, "hook", "session-start", stdin=payload)
    assert warm.returncode == alone.returncode == 0, warm.stderr
    assert warm.stdout == alone.stdout and "hookSpecificOutput" in warm.stdout
    typed_alone = type_command(["search", "connection pool"], project, env=plain)
    typed = type_command(["search", "connection pool"], project, env=env)
    assert typed.code == typed_alone.code == 0
    assert b"\x1b[" in typed.output and typed.output.count(b"\x1b[") == typed_alone.output.count(b"\x1b[")  # colours
    assert _timeless(typed.text) == _timeless(typed_alone.text)  # and the terminal's width


def test_ctrl_c_interrupts_the_command_it_runs(project: Path, runtime: Path) -> None:
    env = _env(runtime)
    _run(project, env, "status")
    _ready(runtime, project, env)
    # A hook whose agent left stdin open waits up to two seconds for the payload: Ctrl-C there.
    read, write = os.pipe()
    proc = subprocess.Popen([MINDEX, "hook", "session-start"], cwd=project, env=env, stdin=read,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(read)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    os.close(write)
    assert proc.returncode == 130 and "Aborted" in err, (proc.returncode, out, err)
    assert _served(project, env, "status").returncode == 0  # and it serves the next one
    doctor = _run(project, env, "doctor", "--json", "--no-hook-timing")
    (check,) = [c for c in json.loads(doctor.stdout)["checks"] if c["check"] == "background process"]
    (lock,) = runtime.rglob("*.lock")
    assert f"pid {lock.read_text().strip()}, " in check["detail"] and "MB resident" in check["detail"]
    off = _run(project, {**env, "MINDEX_BACKGROUND": "0"}, "doctor", "--json", "--no-hook-timing")
    assert any(c["detail"].startswith("off") for c in json.loads(off.stdout)["checks"])


def test_a_missing_or_stale_process_leaves_the_command_to_its_own_process(project: Path, runtime: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(runtime)
    _run(project, env, "status")
    _ready(runtime, project, env)
    (lock,) = runtime.rglob("*.lock")
    pid = int(lock.read_text())
    # Another interpreter (an upgrade, another virtual environment) is declined, and the
    # process stops: the caller runs the command itself.
    from mindex.serve import front

    monkeypatch.chdir(project)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    (socket_file,) = runtime.rglob("*.sock")
    monkeypatch.setattr(sys, "executable", "/elsewhere/python3")
    assert front.forward(str(socket_file), ["status"]) is None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists(), "a stale background process kept running"
    # No process listening: the command runs in its own process, exactly as before, and
    # starts a new one.
    done = _run(project, env, "status", "--json")
    assert done.returncode == 0 and '"documents": 7' in done.stdout
    _ready(runtime, project, env)
    assert _served(project, env, "status", "--json").stdout == done.stdout


def test_the_socket_is_private_and_nothing_runs_when_turned_off(project: Path, runtime: Path) -> None:
    env = _env(runtime)
    _run(project, {**env, "MINDEX_BACKGROUND": "0"}, "status")
    time.sleep(0.5)
    assert not list(runtime.rglob("*.sock"))  # turned off: nothing started
    _run(project, env, "status")
    _ready(runtime, project, env)
    (socket_file,) = runtime.rglob("*.sock")
    assert socket_file.parent.stat().st_mode & 0o777 == 0o700
    assert socket_file.stat().st_mode & 0o077 == 0
    # A folder others can enter is not used: the command runs, nothing listens there.
    shared = runtime / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    (shared / "mindex").mkdir(mode=0o777)
    (shared / "mindex").chmod(0o777)
    done = _run(project, {**env, "XDG_RUNTIME_DIR": str(shared)}, "status")
    assert done.returncode == 0
    time.sleep(0.5)
    assert not list(shared.rglob("*.sock"))


def test_a_locked_index_and_a_read_only_one_answer_as_in_their_own_process(project: Path, runtime: Path) -> None:
    from lockholder import held_by_another_process

    env = _env(runtime, MINDEX_INDEX__LOCK_TIMEOUT="0.5")
    plain = {**env, "MINDEX_BACKGROUND": "0"}
    _run(project, env, "status")
    _ready(runtime, project, env)
    with held_by_another_process(project / ".mindex" / "index.db"):
        alone = _run(project, plain, "memory", "save", "written while another process writes", "--json")
        warm = _served(project, env, "memory", "save", "written while another process writes", "--json")
    assert warm.returncode == alone.returncode == 4, warm.stderr
    assert warm.stdout == alone.stdout and '"code": "INDEX_LOCKED"' in warm.stdout
    assert "memory save" not in _run(project, plain, "memory", "list").stdout  # nothing half written
    # On read-only storage (a read-only bind mount in a private mount namespace, where the
    # background process starts too): reads answer, writes say it is read-only, exit 1.
    script = ('mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && "$1" status >/dev/null && '
              'for n in $(seq 240); do PYTHONPROFILEIMPORTTIME=1 "$1" status 2>"$2/probe" >/dev/null; '
              'grep -q mindex.serve.cli "$2/probe" || break; sleep 0.5; done; '
              'PYTHONPROFILEIMPORTTIME=1 "$1" memory save "a decision" --json >"$2/save.out" 2>"$2/save.err"; '
              'echo $? >"$2/save.code"; PYTHONPROFILEIMPORTTIME=1 "$1" search walrus --json >"$2/search.out" '
              '2>"$2/search.err"; echo $? >"$2/search.code"')
    outputs = runtime / "outputs"  # outside the read-only project
    outputs.mkdir()
    subprocess.run(["unshare", "-rm", "sh", "-c", script, str(project), MINDEX, str(outputs)], cwd=project, env=env,
                   check=True, timeout=120)
    for name in ("save", "search"):
        assert "mindex.serve.cli" not in (outputs / f"{name}.err").read_text(), f"{name} ran in its own process"
    assert (outputs / "save.code").read_text().strip() == "1"
    assert '"code": "INDEX_READ_ONLY"' in (outputs / "save.out").read_text()
    assert (outputs / "search.code").read_text().strip() == "0"
    assert '"results"' in (outputs / "search.out").read_text()


def test_a_process_busy_with_a_blocked_command_leaves_the_next_one_to_run_here(project: Path, runtime: Path) -> None:
    code = project / "code"
    code.mkdir()
    for path in sorted((Path(__file__).parent.parent / "src" / "mindex").glob("*.py"))[:20]:
        shutil.copy(path, code / path.name)
    plain_env = {**os.environ, "MINDEX_BACKGROUND": "0"}
    for args in (["add", "code", "--kind", "code"], ["index", "-q"]):
        subprocess.run([MINDEX, *args], cwd=project, env=plain_env, check=True, capture_output=True, timeout=300)
    env = _env(runtime)
    _run(project, env, "status")
    _ready(runtime, project, env)
    # Every line of 20 files into a pipe nobody reads yet (a pager left open): the background
    # process blocks writing it.
    blocked = subprocess.Popen([MINDEX, "grep", ".", "-n", "100000"], cwd=project, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    time.sleep(1.0)
    started = time.monotonic()
    saved = _run(project, {**env, "PYTHONPROFILEIMPORTTIME": "1"}, "memory", "save", "saved while it was busy")
    assert saved.returncode == 0 and time.monotonic() - started < 30
    assert "mindex.serve.cli" in saved.stderr  # waited a few seconds, then ran in its own process
    out, _ = blocked.communicate(timeout=60)
    assert blocked.returncode == 0 and out.decode().count("\n") > 2000  # the blocked one finished whole
    listed = _run(project, {**env, "MINDEX_BACKGROUND": "0"}, "memory", "list", "--json")
    assert listed.stdout.count("saved while it was busy") == 1  # run once, not in both places


def test_a_module_a_command_loaded_later_is_watched_for_edits_too(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The process stops answering once a loaded mindex module's file changes; a module a
    command imports after the process started is watched from then on (an edited module of
    that kind went on answering from the code loaded before the edit)."""
    import importlib

    from mindex.serve.background import _changed, _sources, _track

    sources = _sources()
    probe = tmp_path / "mindex_probe_late.py"
    probe.write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("mindex_probe_late")
    try:
        assert str(probe) not in sources
        _track(sources)
        assert sources[str(probe)] == probe.stat().st_mtime_ns and not _changed(sources)
        os.utime(probe, ns=(probe.stat().st_atime_ns, probe.stat().st_mtime_ns + 1_000_000_000))
        assert _changed(sources)
    finally:
        sys.modules.pop("mindex_probe_late", None)
