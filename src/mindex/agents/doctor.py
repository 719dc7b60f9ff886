"""`mindex doctor`: is everything an agent needs in place? Each check says ok, warn or fail,
what it found and the next step."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mindex.agents.install import CLIENTS, installed
from mindex.errors import UPGRADE_HINT

HOOK_TARGET_MS = 400.0


def _check(name: str, status: str, detail: str, hint: str | None = None) -> dict[str, Any]:
    return {"check": name, "status": status, "detail": detail, "hint": hint}


def _server(url: str) -> tuple[int, list[tuple[str, str, str, float | None]]]:
    """(schema version, sources) of an index in PostgreSQL, read without creating one."""
    from mindex.store.postgres import PostgresStore

    store = PostgresStore(url, 5.0, create=False)
    try:
        return store.schema_version(), [(s.source.name, s.source.kind, s.source.root, s.source.indexed_at)
                                         for s in store.list_sources()]
    finally:
        store.close()


def run(db: Path | str, project: Path, settings: Any, hook_timing: bool = True) -> list[dict[str, Any]]:
    """Every check, in order."""
    from mindex.errors import MindexError
    from mindex.store.sqlite import SCHEMA_VERSION, peek

    checks = []
    if isinstance(db, str):  # a postgresql:// URL
        from mindex.store.postgres import redact

        try:
            version, sources = _server(db)
        except MindexError as exc:
            checks.append(_check("index", "fail", str(exc).split("; ")[0], "; ".join(str(exc).split("; ")[1:]) or None))
            sources = []
        else:
            state = "ok" if version == SCHEMA_VERSION else "fail" if version > SCHEMA_VERSION else "warn"
            checks.append(_check("index", state, f"{redact(db)}, schema v{version}"))
        for name, kind, root, indexed_at in sources:
            checks.append(_source_check(name, kind, Path(root), indexed_at))
    elif not db.exists():
        checks.append(_check("index", "fail", f"no index at {db}",
                             "register a folder with `mindex add <folder>` and run `mindex index`"))
    else:
        try:
            version, sources = peek(db)
        except sqlite3.Error as exc:
            cause, _, fix = str(exc).partition("; ")
            checks.append(_check("index", "fail", f"{db}: {cause}", fix or "check the file, or move it away and index again"))
            sources = []
        else:
            if version == SCHEMA_VERSION:
                checks.append(_check("index", "ok", f"{db}, schema v{version}"))
            elif version < SCHEMA_VERSION:
                checks.append(_check("index", "warn", f"{db} is schema v{version}; this mindex writes v{SCHEMA_VERSION}",
                                     "any write (`mindex index`) upgrades it"))
            else:
                checks.append(_check("index", "fail", f"{db} is schema v{version}, newer than this mindex",
                                     UPGRADE_HINT))
        for name, kind, root, indexed_at in sources:
            checks.append(_source_check(name, kind, Path(root), indexed_at))
    checks.append(_model_check(settings))
    for client in CLIENTS:
        for scope in ("project", "user"):
            found = installed(client, scope, project)
            if not found["installed"]:
                continue
            command = found["command"]
            files = ", ".join(found["files"])
            if os.sep in command:
                ok = Path(command).is_file() and os.access(command, os.X_OK)
                detail, hint = f"{files} runs {command}", f"the command is gone; run `mindex install {client} --{scope}` again"
            else:
                ok = shutil.which(command) is not None
                detail = f"{files} runs {command}" + ("" if ok else ", which is not on PATH")
                hint = (f"install mindex as a tool so `{command}` is on every PATH (`pipx install <checkout or wheel>` or "
                        f"`uv tool install <checkout or wheel>`), or `mindex install {client} --user` for this "
                        "environment's absolute path")
            checks.append(_check(f"{client} ({scope})", "ok" if ok else "fail", detail, None if ok else hint))
    if not any(c["check"].endswith("(project)") or c["check"].endswith("(user)") for c in checks):
        checks.append(_check("integrations", "warn", "no agent is set up to use mindex here",
                             "run `mindex install claude-code` (or cursor, codex, vscode, claude-desktop)"))
    if hook_timing and (isinstance(db, str) or db.exists()):
        checks.append(_hook_check(project))
    checks.append(_background_check())
    return checks


def _background_check() -> dict[str, Any]:
    """Whether this index's background process runs (`mindex.serve.front`), and its size."""
    from mindex.serve import front

    if not front.served(["status"]):
        return _check("background process", "ok", "off (MINDEX_BACKGROUND=0): every command loads what it needs")
    path = front.socket_path(["status"])
    if path is None:
        return _check("background process", "warn", "none: no private folder for its socket",
                      "make $XDG_RUNTIME_DIR (or the temporary folder) a folder only you can write")
    try:
        pid = int(Path(path + ".lock").read_text().strip())
        running = b"mindex.serve.background" in Path(f"/proc/{pid}/cmdline").read_bytes()
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, ValueError):
        running = False
    if not running:
        return _check("background process", "ok", "not running; the next search, memory or hook command starts one")
    rss = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), "")
    idle = front.idle_seconds()
    size = f"{int(rss) // 1024} MB resident, " if rss.isdigit() else ""
    return _check("background process", "ok", f"pid {pid}, {size}socket {path}; it exits after {idle:.0f} idle "
                  f"seconds (`kill {pid}` stops it now)")


def _source_check(name: str, kind: str, root: Path, indexed_at: float | None) -> dict[str, Any]:
    if not root.is_dir():
        return _check(f"source {name}", "fail", f"{root} is gone", f"`mindex remove {name}` or restore the folder")
    if indexed_at is None and kind in ("memory", "knowledge") and not any(root.iterdir()):
        return _check(f"source {name}", "ok", f"{kind} at {root}, empty so far (a save indexes itself)")
    if indexed_at is None:
        return _check(f"source {name}", "warn", f"{kind} at {root}, never indexed", "run `mindex index`")
    if kind in ("memory", "knowledge"):
        return _check(f"source {name}", "ok", f"{kind} at {root} (indexed on every save; hand edits by `mindex index`)")
    if kind == "docs":  # added as docs (the default before `add` guessed), though it holds code
        from mindex.sources.guess import guess_kind

        guess = guess_kind(root)
        if guess.kind == "code":
            return _check(f"source {name}", "warn", f"docs at {root}, which holds {guess.reason()}: a docs source "
                          "reads none of the code, so grep and code search find nothing there",
                          f"`mindex remove {name}`, then `mindex add {root}` reads it as code")
    newer = 0
    deadline = time.monotonic() + 1.0  # a quick look, not a full walk of a huge tree
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__")]
        for file in files:
            try:
                if os.stat(os.path.join(folder, file)).st_mtime > indexed_at:
                    newer += 1
            except OSError:
                continue
        if time.monotonic() > deadline:
            break
    age = time.time() - indexed_at
    when = f"indexed {age / 3600:.1f} h ago" if age < 172800 else f"indexed {age / 86400:.0f} days ago"
    if newer:
        return _check(f"source {name}", "warn", f"{kind} at {root}, {when}; {newer} file{'s' * (newer != 1)} changed since",
                      f"run `mindex index {name}` (or keep `mindex watch` running)")
    return _check(f"source {name}", "ok", f"{kind} at {root}, {when}")


def _model_check(settings: Any) -> dict[str, Any]:
    conf = settings.embed
    if conf.provider == "none":
        return _check("model", "ok", "embeddings are off (embed.provider = none): keyword search only")
    if conf.provider != "onnx":
        return _check("model", "ok", f"{conf.provider} at {conf.base_url or 'its default address'} (not checked)")
    from mindex.embed.models import find_model

    found = find_model(conf.model, conf.models_dir)
    if found is None:
        return _check("model", "warn", f"{conf.model} is not installed: search is keyword-only",
                      f"`mindex models add {conf.model}`")
    from mindex.embed.onnx import OnnxEmbedder
    from mindex.errors import MindexError

    try:
        OnnxEmbedder(found, threads=1)  # the files load: what a search would find out first
    except MindexError as exc:
        cause, _, fix = str(exc).partition("; ")
        return _check("model", "fail", cause, fix or None)
    return _check("model", "ok", f"{found.model_id} at {found.onnx_path.parent}")


def _hook_check(project: Path) -> dict[str, Any]:
    """Time the session-start hook as the agent runs it: a whole process, no payload."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, "-P", "-m", "mindex", "hook", "session-start", "--format", "text"],
                                  cwd=project, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return _check("session-start hook", "fail", "took over 30 s", "see `mindex -v hook session-start`")
        times.append((time.perf_counter() - started) * 1000)
        if done.returncode != 0:
            return _check("session-start hook", "fail", f"exit {done.returncode}: {done.stderr.strip()[:200]}")
    best = min(times)
    status = "ok" if best <= HOOK_TARGET_MS else "warn"
    return _check("session-start hook", status, f"{best:.0f} ms (best of 3, whole process)",
                  None if status == "ok" else "a slow start delays every session; `mindex -v hook session-start "
                  "--format text` shows what it reads, and `mindex compact` shrinks an index edits have grown")
