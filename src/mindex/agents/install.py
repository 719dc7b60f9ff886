"""Write mindex into coding agents' configuration: the MCP server entry for every client, and
for Claude Code the session hooks too.

Formats (each client's documentation, checked 2026-11):
- Claude Code: project `.mcp.json` / user `~/.claude.json`, `{"mcpServers": {name: {"type":
  "stdio", "command", "args"}}}`; hooks in `.claude/settings.json` / `~/.claude/settings.json`,
  `{"hooks": {"SessionStart": [{"matcher": "...", "hooks": [{"type": "command", "command",
  "timeout"}]}]}}`.
- Cursor: `.cursor/mcp.json` / `~/.cursor/mcp.json`, `{"mcpServers": {name: {"command", "args"}}}`.
- Codex: `.codex/config.toml` / `$CODEX_HOME/config.toml` (`~/.codex`), table `[mcp_servers.<name>]`
  with `command` and `args`.
- VS Code: `.vscode/mcp.json` / the user profile's `mcp.json`, `{"servers": {name: {"type":
  "stdio", "command", "args", "cwd"}}}`.
- Claude Desktop: `claude_desktop_config.json` in its config folder (user scope only),
  `{"mcpServers": {...}}`; it starts servers outside any project, so the entry names the
  project's index with `--db`.

Every change: idempotent (a second install changes nothing), merged into what is there (other
servers, other hooks, unknown keys; TOML comments are kept because the table is edited as
text), a backup first (in the user's state folder, never in the project), `--dry-run` prints
the diff. Project files name the command `mindex` (they are shared), user files its absolute
path. `uninstall` removes the server
entry and the hook handlers whose command is mindex's, then any container they leave empty.
An MCP file with comments (VS Code's JSONC) is edited as text: only the `mindex` entry is
added or removed, every comment stays. A hooks file with comments is refused (Claude Code's
settings are plain JSON), with what to add by hand.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mindex.errors import ConfigError

NAME = "mindex"
CLIENTS = ("claude-code", "cursor", "codex", "vscode", "claude-desktop")
HOOK_EVENTS = (("SessionStart", "startup|resume|clear|compact", "session-start", 10),
               ("PreCompact", "manual|auto", "pre-compact", 60),
               ("SessionEnd", None, "session-end", 60))


@dataclass(frozen=True)
class Change:
    """One configuration file's old and new text (`old` None: the file does not exist)."""

    path: Path
    old: str | None
    new: str | None  # None: the file is to be deleted (it held only what mindex added)
    what: str

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self) -> str:
        return "".join(difflib.unified_diff(
            (self.old or "").splitlines(keepends=True), (self.new or "").splitlines(keepends=True),
            fromfile=f"{self.path}" if self.old is not None else "/dev/null",
            tofile=f"{self.path}" if self.new is not None else "/dev/null"))

    def to_dict(self) -> dict[str, Any]:
        return {"file": str(self.path), "what": self.what, "changed": self.changed,
                "action": "unchanged" if not self.changed else "create" if self.old is None
                else "delete" if self.new is None else "update"}


def command_for(scope: str) -> str:
    """The command an agent's entry runs. Project files are committed and shared, so they name
    `mindex`, which works on any machine where it is installed on PATH (`pipx install`, `uv
    tool install`; `mindex doctor` checks it resolves); a path into one person's virtual
    environment would fail for every teammate. User files stay on this machine and name the
    absolute path, which an agent started with another PATH still finds."""
    return NAME if scope == "project" else executable()


def backup_dir() -> Path:
    """Where `install` and `uninstall` keep the files they change, as they were: in the user's
    state folder, never in the project (where a backup would be committed, or read by the
    session hook as a file in flight)."""
    from platformdirs import user_state_path

    return user_state_path(NAME) / "backups"


def executable() -> str:
    """The absolute path of the `mindex` command, so a client with another PATH finds it."""
    here = Path(sys.argv[0])
    if here.name == NAME and here.exists():
        return str(here.resolve())
    found = shutil.which(NAME)
    if found:
        return str(Path(found).resolve())
    beside = Path(sys.executable).with_name(NAME)
    return str(beside) if beside.exists() else NAME


def user_config_dir() -> Path:
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def _server(client: str, exe: str, project: Path, scope: str) -> dict[str, Any]:
    if client == "claude-desktop":
        return {"command": exe, "args": ["--db", str(project / ".mindex" / "index.db"), "serve"]}
    if client == "vscode":
        return {"type": "stdio", "command": exe, "args": ["serve"], "cwd": "${workspaceFolder}"}
    if client == "claude-code":
        return {"type": "stdio", "command": exe, "args": ["serve"]}
    return {"command": exe, "args": ["serve"]}


def targets(client: str, scope: str, project: Path) -> list[tuple[Path, str]]:
    """The files a client's set-up writes: (path, "mcp" | "hooks" | "toml")."""
    home = Path.home()
    if client == "claude-code":
        if scope == "project":
            return [(project / ".mcp.json", "mcp"), (project / ".claude" / "settings.json", "hooks")]
        return [(home / ".claude.json", "mcp"), (home / ".claude" / "settings.json", "hooks")]
    if client == "cursor":
        return [((project if scope == "project" else home) / ".cursor" / "mcp.json", "mcp")]
    if client == "codex":
        base = project / ".codex" if scope == "project" else Path(os.environ.get("CODEX_HOME") or home / ".codex")
        return [(base / "config.toml", "toml")]
    if client == "vscode":
        if scope == "project":
            return [(project / ".vscode" / "mcp.json", "mcp")]
        return [(user_config_dir() / "Code" / "User" / "mcp.json", "mcp")]
    if client == "claude-desktop":
        if scope == "project":
            raise ConfigError("Claude Desktop has no project settings; install it with --user")
        folder = "Claude"
        return [(user_config_dir() / folder / "claude_desktop_config.json", "mcp")]
    raise ConfigError(f"unknown client {client!r}; use one of: {', '.join(CLIENTS)}")


# -- JSON ------------------------------------------------------------------------------------


# What JSON with comments allows beyond JSON, as VS Code reads its mcp.json: comments, and a
# comma before a closing bracket. Strings are matched first so that nothing inside one is cut.
_JSONC_ONLY = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/|,(?=(?:\s|//[^\n]*|/\*.*?\*/)*[}\]])',
                         re.DOTALL)


def _plain_json(text: str) -> str:
    return _JSONC_ONLY.sub(lambda m: m.group(1) or "", text)


def _load_json(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    stripped = _plain_json(text)
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); fix it, then run "
                          "the install again (nothing was changed)") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: holds JSON that is not an object; fix it, then run the install again")
    return data


def is_jsonc(text: str | None) -> bool:
    """Whether the text uses comments or trailing commas, which rewriting it as JSON would lose."""
    return bool(text) and _plain_json(text or "") != text


def _dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _is_ours(handler: Any) -> bool:
    return isinstance(handler, dict) and bool(re.search(r"(^|[/\\\s])mindex(\.exe)?\"?\s+hook\s", str(handler.get("command", ""))))


def _mcp_key(client: str) -> str:
    return "servers" if client == "vscode" else "mcpServers"


def _install_json(data: dict[str, Any], client: str, kind: str, exe: str, project: Path, scope: str) -> None:
    if kind == "mcp":
        servers = data.setdefault(_mcp_key(client), {})
        if not isinstance(servers, dict):
            raise ConfigError(f"`{_mcp_key(client)}` is not an object in the {client} configuration; fix it first")
        servers[NAME] = _server(client, exe, project, scope)
        return
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError("`hooks` is not an object in .claude/settings.json; fix it first")
    for event, matcher, command, timeout in HOOK_EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f"`hooks.{event}` is not a list in the Claude Code settings; fix it first")
        handler = {"type": "command", "command": f"{_quote(exe)} hook {command}", "timeout": timeout}
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                group["hooks"] = [h for h in group["hooks"] if not _is_ours(h)]
        groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        entry: dict[str, Any] = {"hooks": [handler]}
        if matcher:
            entry = {"matcher": matcher, **entry}
        groups.append(entry)


def _uninstall_json(data: dict[str, Any], client: str, kind: str) -> None:
    if kind == "mcp":
        servers = data.get(_mcp_key(client))
        if isinstance(servers, dict) and NAME in servers:
            del servers[NAME]
            if not servers:
                del data[_mcp_key(client)]
        return
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                had = len(group["hooks"])
                group["hooks"] = [h for h in group["hooks"] if not _is_ours(h)]
                if had and not group["hooks"]:
                    continue  # the group held only mindex's handler
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del data["hooks"]


def _quote(exe: str) -> str:
    return f'"{exe}"' if re.search(r"\s", exe) else exe


# -- TOML (Codex), edited as text so comments and layout stay ----------------------------------


def _toml_table(exe: str) -> str:
    return f'[mcp_servers.{NAME}]\ncommand = {json.dumps(exe)}\nargs = ["serve"]\n'


_HEADER = re.compile(r"^\s*\[\s*mcp_servers\s*\.\s*(?:\"mindex\"|'mindex'|mindex)\s*\]\s*(#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")


def _toml_span(lines: list[str]) -> tuple[int, int] | None:
    """The lines [start, end) of our table (its header to the next header)."""
    for i, line in enumerate(lines):
        if _HEADER.match(line):
            end = i + 1
            while end < len(lines) and not _ANY_HEADER.match(lines[end]):
                end += 1
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1
            return i, end
    return None


def _check_toml(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix it, then run the install again") from None


def _install_toml(path: Path, text: str | None, exe: str) -> str:
    text = text or ""
    data = _check_toml(path, text)
    lines = text.splitlines(keepends=True)
    span = _toml_span(lines)
    table = _toml_table(exe)
    if span is None:
        if NAME in (data.get("mcp_servers") or {}):
            raise ConfigError(f"{path} defines mcp_servers.{NAME} in a form this installer does not edit; "
                              f"replace it with a [mcp_servers.{NAME}] table by hand")
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        new = text + sep + table
    else:
        start, end = span
        new = "".join(lines[:start]) + table + "".join(lines[end:])
    _check_toml(path, new)
    return new


def _uninstall_toml(path: Path, text: str | None) -> str | None:
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    span = _toml_span(lines)
    if span is None:
        return text
    start, end = span
    while end < len(lines) and not lines[end].strip():
        end += 1  # the blank line after the table
    if start > 0 and not lines[start - 1].strip() and end >= len(lines):
        start -= 1  # it was last: drop the blank line before it
    new = "".join(lines[:start] + lines[end:])
    return new if new.strip() else None


# -- plan, apply -------------------------------------------------------------------------------


def plan(client: str, scope: str, project: Path, remove: bool = False, exe: str | None = None) -> list[Change]:
    """What installing (or removing) mindex for a client would change; nothing is written."""
    exe = exe or command_for(scope)
    changes = []
    for path, kind in targets(client, scope, project):
        try:
            old = path.read_text(encoding="utf-8") if path.exists() else None
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ConfigError(f"cannot read {path}: {reason}; fix or move it, then run the install again") from None
        if kind == "toml":
            new = _uninstall_toml(path, old) if remove else _install_toml(path, old, exe)
            what = f"[mcp_servers.{NAME}]"
        elif is_jsonc(old) and kind == "mcp":
            # JSON with comments or trailing commas (VS Code allows both): edit the one key as
            # text, the rest kept byte for byte
            from mindex.agents import jsonc

            _load_json(path, old)  # valid once comments and trailing commas are out, or a clear error
            assert old is not None
            try:
                new = jsonc.remove_member(old, _mcp_key(client), NAME) if remove else \
                    jsonc.set_member(old, _mcp_key(client), NAME, _server(client, exe, project, scope))
            except ValueError as exc:
                raise ConfigError(f"{path}: cannot edit it in place ({exc}); add mindex by hand") from None
            what = f"{_mcp_key(client)}.{NAME}"
        elif is_jsonc(old):
            raise ConfigError(f"{path} has comments or trailing commas, which rewriting the JSON would lose; add the "
                              "hooks by hand (see `--dry-run --json` on a copy without them) or remove them")
        else:
            data = _load_json(path, old)
            before = json.loads(json.dumps(data))
            if remove:
                _uninstall_json(data, client, kind)
            else:
                _install_json(data, client, kind, exe, project, scope)
            if data == before:
                new = old  # nothing to do: keep the user's text as it is
            else:
                new = _dump_json(data) if data else None  # removing the last key: the file was only ours
            what = "hooks" if kind == "hooks" else f"{_mcp_key(client)}.{NAME}"
        if remove and old is None:
            new = None
        changes.append(Change(path, old, new, what))
    return changes


def apply(changes: list[Change]) -> list[Path]:
    """Write the changes: a timestamped backup of each file first, then temp file + rename.
    Returns the backups made."""
    try:
        return _apply(changes)
    except OSError as exc:
        where = exc.filename or "a configuration file"
        raise ConfigError(f"cannot write {where}: {exc.strerror or exc}; files written before it keep their "
                          f"backups (in {backup_dir()})") from None


def _apply(changes: list[Change]) -> list[Path]:
    backups = []
    run: Path | None = None
    for change in changes:
        if not change.changed:
            continue
        path = change.path
        if change.old is not None:
            if run is None:  # one folder per run, each file under its absolute path: it says which file it was
                backup_dir().mkdir(parents=True, exist_ok=True)
                run = Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"), dir=backup_dir()))
            backup = run / path.resolve().relative_to(path.resolve().anchor)
            backup.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, backup)
            backups.append(backup)
        if change.new is None:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.mindex-tmp")
        tmp.write_text(change.new, encoding="utf-8")
        if change.old is not None:
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    return backups


def installed(client: str, scope: str, project: Path) -> dict[str, Any]:
    """Whether a client's configuration holds mindex, and the command it would run."""
    found: dict[str, Any] = {"client": client, "scope": scope, "installed": False, "command": None, "files": []}
    try:
        paths = targets(client, scope, project)
    except ConfigError:
        return found
    for path, kind in paths:
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found["files"].append(str(path))
        try:
            if kind == "toml":
                entry = (tomllib.loads(text).get("mcp_servers") or {}).get(NAME)
            elif kind == "mcp":
                entry = (json.loads(_plain_json(text)).get(_mcp_key(client)) or {}).get(NAME)
            else:
                continue
        except (ValueError, AttributeError):
            continue
        if isinstance(entry, dict) and entry.get("command"):
            found["installed"] = True
            found["command"] = str(entry["command"])
    return found
