"""`mindex install|uninstall <client>` and `mindex doctor` on realistic existing configuration
files (other servers, other hooks, comments), through the real CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ENV = {"MINDEX_EMBED__PROVIDER": "none"}


def mindex(cwd: Path, *args: str, code: int = 0, as_json: bool = True) -> Any:
    proc = subprocess.run([sys.executable, "-m", "mindex", *args, *(["--json"] if as_json else [])], cwd=cwd,
                          env={**os.environ, **ENV}, capture_output=True, text=True, input="")
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    return json.loads(proc.stdout) if as_json else proc


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    return root


CLAUDE_SETTINGS = {
    "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "1"},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
    },
}
MCP = {"mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
                      "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}}


def test_claude_code_install_merges_backs_up_is_idempotent_and_uninstalls_exactly(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(CLAUDE_SETTINGS, indent=2))
    (project / ".mcp.json").write_text(json.dumps(MCP, indent=2))
    dry = mindex(project, "install", "claude-code", "--dry-run")
    assert dry["dry_run"] and "+    \"mindex\": {" in dry["diff"] and "hook session-start" in dry["diff"]
    assert json.loads((project / ".mcp.json").read_text()) == MCP  # a dry run writes nothing
    done = mindex(project, "install", "claude-code")
    assert {c["action"] for c in done["changes"]} == {"update"} and len(done["backups"]) == 2
    assert json.loads(Path(done["backups"][0]).read_text()) == MCP
    # backups live in the user's state folder under the file's own path, never in the project
    state = Path(os.environ["XDG_STATE_HOME"]) / "mindex" / "backups"
    assert all(Path(b).is_relative_to(state) and Path(b).name in (".mcp.json", "settings.json") for b in done["backups"])
    assert Path(done["backups"][0]).as_posix().endswith(f"{project.resolve().as_posix()}/.mcp.json")
    assert not list(project.rglob("*backup*"))
    mcp = json.loads((project / ".mcp.json").read_text())
    assert mcp["mcpServers"]["github"] == MCP["mcpServers"]["github"] and mcp["mcpServers"]["fs"] == MCP["mcpServers"]["fs"]
    # committed files name the command, which works on a teammate's machine too
    assert mcp["mcpServers"]["mindex"] == {"type": "stdio", "command": "mindex", "args": ["serve"]}
    assert done["command"] == "mindex"
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["permissions"] == CLAUDE_SETTINGS["permissions"] and settings["env"] == {"FOO": "1"}
    starts = settings["hooks"]["SessionStart"]
    assert starts[0] == CLAUDE_SETTINGS["hooks"]["SessionStart"][0]  # theirs kept, first
    assert starts[1]["matcher"] == "startup|resume|clear|compact"
    assert starts[1]["hooks"][0]["command"] == "mindex hook session-start"
    assert settings["hooks"]["PreCompact"][0]["hooks"][0]["command"] == "mindex hook pre-compact"
    assert settings["hooks"]["SessionEnd"][0]["hooks"][0]["command"] == "mindex hook session-end"
    before = {p: p.read_text() for p in (project / ".mcp.json", project / ".claude" / "settings.json")}
    again = mindex(project, "install", "claude-code")
    assert {c["action"] for c in again["changes"]} == {"unchanged"} and again["backups"] == []
    assert {p: p.read_text() for p in before} == before
    mindex(project, "uninstall", "claude-code")
    assert json.loads((project / ".mcp.json").read_text()) == MCP
    assert json.loads((project / ".claude" / "settings.json").read_text()) == CLAUDE_SETTINGS
    assert {c["action"] for c in mindex(project, "uninstall", "claude-code")["changes"]} == {"unchanged"}


def test_a_fresh_project_gets_new_files_and_uninstall_deletes_them(project: Path) -> None:
    mindex(project, "install", "claude-code")
    assert (project / ".mcp.json").exists() and (project / ".claude" / "settings.json").exists()
    out = mindex(project, "uninstall", "claude-code")
    assert {c["action"] for c in out["changes"]} == {"delete"}
    assert not (project / ".mcp.json").exists() and not (project / ".claude" / "settings.json").exists()


CODEX = """# Codex configuration
model = "gpt-5-codex"   # the default model

[mcp_servers.docs]
command = "docs-server"  # keep me
args = ["--port", "0"]

# profiles below
[profiles.fast]
model = "o4-mini"
"""


def test_codex_toml_keeps_comments_and_other_tables(project: Path, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"]) / ".codex"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(CODEX)
    mindex(project, "install", "codex", "--user")
    text = (home / "config.toml").read_text()
    assert text.startswith(CODEX) and "# keep me" in text and "# profiles below" in text
    data = tomllib.loads(text)
    assert data["mcp_servers"]["docs"]["command"] == "docs-server" and data["profiles"]["fast"]["model"] == "o4-mini"
    assert data["mcp_servers"]["mindex"]["args"] == ["serve"]
    assert mindex(project, "install", "codex", "--user")["changes"][0]["action"] == "unchanged"
    mindex(project, "uninstall", "codex", "--user")
    assert (home / "config.toml").read_text() == CODEX
    # a broken file is reported with its place and left alone
    (home / "config.toml").write_text("model = \n")
    err = mindex(project, "install", "codex", "--user", code=1)["error"]
    assert "not valid TOML" in err["message"] and (home / "config.toml").read_text() == "model = \n"


def test_cursor_vscode_and_claude_desktop_formats(project: Path) -> None:
    (project / ".vscode").mkdir()
    (project / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {"other": {"type": "stdio", "command": "x"}},
                                                              "inputs": []}))
    mindex(project, "install", "vscode")
    vscode = json.loads((project / ".vscode" / "mcp.json").read_text())
    assert vscode["servers"]["mindex"]["type"] == "stdio" and vscode["servers"]["mindex"]["cwd"] == "${workspaceFolder}"
    assert vscode["servers"]["other"] == {"type": "stdio", "command": "x"} and vscode["inputs"] == []
    mindex(project, "install", "cursor", "--user")
    cursor = json.loads((Path(os.environ["HOME"]) / ".cursor" / "mcp.json").read_text())
    assert cursor["mcpServers"]["mindex"]["args"] == ["serve"]
    desktop = mindex(project, "install", "claude-desktop")
    assert desktop["scope"] == "user"
    config = json.loads(Path(desktop["changes"][0]["file"]).read_text())
    assert config["mcpServers"]["mindex"]["args"] == ["--db", str(project / ".mindex" / "index.db"), "serve"]
    assert mindex(project, "install", "claude-desktop", "--project", code=1)["error"]["message"].startswith(
        "Claude Desktop has no project settings")


def test_json_with_comments_is_edited_in_place_and_comments_stay(project: Path) -> None:
    (project / ".vscode").mkdir()
    text = ('{\n  // servers for this repo\n  "servers": {\n    "docs": {"type": "http", "url": "http://x"} // ours\n'
            '  },\n  /* prompts */\n  "inputs": []\n}\n')
    (project / ".vscode" / "mcp.json").write_text(text)
    done = mindex(project, "install", "vscode")
    new = (project / ".vscode" / "mcp.json").read_text()
    assert done["changes"][0]["action"] == "update"
    for comment in ("// servers for this repo", "// ours", "/* prompts */"):
        assert comment in new
    data = json.loads(re.sub(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', lambda m: m.group(1) or "", new, flags=re.S))
    assert data["servers"]["docs"] == {"type": "http", "url": "http://x"} and data["servers"]["mindex"]["args"] == ["serve"]
    assert mindex(project, "install", "vscode")["changes"][0]["action"] == "unchanged"
    mindex(project, "uninstall", "vscode")
    assert (project / ".vscode" / "mcp.json").read_text() == text  # byte for byte
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{\n  // mine\n  "env": {}\n}\n')
    err = mindex(project, "install", "claude-code", code=1)["error"]
    assert "has comments" in err["message"]
    (project / ".vscode" / "mcp.json").write_text('{"servers": [1,}')
    assert "not valid JSON" in mindex(project, "install", "vscode", code=1)["error"]["message"]


def test_json_with_trailing_commas_as_vs_code_reads_it_is_edited_in_place(project: Path) -> None:
    (project / ".vscode").mkdir()
    text = '{\n  "servers": {\n    "docs": {"type": "http", "url": "http://x,]"},\n  },\n  "inputs": [1, 2,],\n}\n'
    (project / ".vscode" / "mcp.json").write_text(text)
    assert mindex(project, "install", "vscode")["changes"][0]["action"] == "update"
    new = (project / ".vscode" / "mcp.json").read_text()
    assert new.endswith('  "inputs": [1, 2,],\n}\n')  # the user's commas stay where they were
    plain = re.sub(r'("(?:\\.|[^"\\])*")|,(?=\s*[}\]])', lambda m: m.group(1) or "", new)
    data = json.loads(plain)
    assert data["servers"]["docs"]["url"] == "http://x,]" and data["servers"]["mindex"]["args"] == ["serve"]
    assert data["inputs"] == [1, 2]
    mindex(project, "uninstall", "vscode")
    assert (project / ".vscode" / "mcp.json").read_text() == text  # byte for byte
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{\n  "env": {},\n}\n')
    assert "trailing commas" in mindex(project, "install", "claude-code", code=1)["error"]["message"]


def test_doctor_loads_the_model_and_names_a_damaged_file(project: Path, tmp_path: Path) -> None:
    docs = project / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\ntext\n")
    mindex(project, "add", str(docs))
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.onnx").write_bytes(b"cut short")
    (model / "tokenizer.json").write_text("{}")
    proc = subprocess.run([sys.executable, "-m", "mindex", "doctor", "--no-hook-timing", "--json"], cwd=project,
                          env={**os.environ, "MINDEX_EMBED__PROVIDER": "onnx", "MINDEX_EMBED__MODEL": str(model)},
                          capture_output=True, text=True)
    checks = {c["check"]: c for c in json.loads(proc.stdout)["checks"]}
    assert proc.returncode == 1 and checks["model"]["status"] == "fail"
    assert checks["model"]["detail"].startswith(f"{model / 'tokenizer.json'} is not a tokenizer file")


def test_doctor_reports_index_sources_integrations_and_hook_time(project: Path) -> None:
    fail = mindex(project, "doctor", "--no-hook-timing", code=1)
    assert not fail["ok"] and fail["checks"][0]["check"] == "index" and fail["checks"][0]["status"] == "fail"
    docs = project / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\ntext\n")
    mindex(project, "add", str(docs))
    mindex(project, "index")
    mindex(project, "install", "claude-code")
    report = mindex(project, "doctor")
    checks = {c["check"]: c for c in report["checks"]}
    assert report["ok"] and checks["index"]["status"] == "ok" and checks["source docs"]["status"] == "ok"
    assert checks["claude-code (project)"]["status"] == "ok"
    assert checks["session-start hook"]["status"] in ("ok", "warn") and "ms" in checks["session-start hook"]["detail"]
    mindex(project, "memory", "save", "chose docs/ for the manual", "--type", "decision")
    mindex(project, "context", "--files", "docs/a.md")  # registers the knowledge folder, empty
    after_save = {c["check"]: c for c in mindex(project, "doctor", "--no-hook-timing")["checks"]}
    assert after_save["source memory"]["status"] == "ok"
    assert after_save["source knowledge"]["status"] == "ok" and "empty so far" in after_save["source knowledge"]["detail"]
    (docs / "b.md").write_text("# B\n")
    assert {c["check"]: c for c in mindex(project, "doctor", "--no-hook-timing")["checks"]}["source docs"][
        "status"] == "warn"
    settings = json.loads((project / ".mcp.json").read_text())
    settings["mcpServers"]["mindex"]["command"] = str(project / "gone" / "mindex")
    (project / ".mcp.json").write_text(json.dumps(settings))
    broken = mindex(project, "doctor", "--no-hook-timing", code=1)
    assert {c["check"]: c for c in broken["checks"]}["claude-code (project)"]["status"] == "fail"


def test_doctor_warns_of_a_folder_of_code_registered_as_docs(project: Path) -> None:
    """Before `mindex add` guessed the kind, a folder of code added without `--kind code` was
    docs, which read none of its code: doctor says so and how to mend it."""
    src = project / "src"
    src.mkdir()
    for n in range(3):
        (src / f"mod{n}.py").write_text(f"def f{n}():\n    return {n}\n")
    (src / "README.md").write_text("# Src\n")
    mindex(project, "add", str(src), "--kind", "docs")
    mindex(project, "index")
    check = {c["check"]: c for c in mindex(project, "doctor", "--no-hook-timing")["checks"]}["source src"]
    assert check["status"] == "warn" and "3 source files of code, 1 of docs" in check["detail"]
    assert check["hint"] == f"`mindex remove src`, then `mindex add {src}` reads it as code"
    mindex(project, "remove", "src")
    assert mindex(project, "add", str(src))["kind"] == "code"
    mindex(project, "index")
    assert {c["check"]: c for c in mindex(project, "doctor", "--no-hook-timing")["checks"]}["source src"][
        "status"] == "ok"


def test_project_files_name_mindex_on_path_and_user_files_its_absolute_path(project: Path, tmp_path: Path) -> None:
    """A teammate's agent starts the server from the committed files, so they say `mindex`;
    doctor fails where that does not resolve and says how to install it as a tool."""
    mindex(project, "install", "cursor")
    entry = json.loads((project / ".cursor" / "mcp.json").read_text())["mcpServers"]["mindex"]
    assert entry == {"command": "mindex", "args": ["serve"]}
    found = mindex(project, "doctor", "--no-hook-timing", code=1)["checks"]  # code 1: no index here yet
    assert {c["check"]: c for c in found}["cursor (project)"]["status"] == "ok"  # the suite's PATH has this mindex
    bare = subprocess.run([sys.executable, "-m", "mindex", "doctor", "--no-hook-timing", "--json"], cwd=project,
                          env={**os.environ, **ENV, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    check = {c["check"]: c for c in json.loads(bare.stdout)["checks"]}["cursor (project)"]
    assert bare.returncode == 1 and check["status"] == "fail"
    assert "not on PATH" in check["detail"] and "pipx install" in check["hint"] and "--user" in check["hint"]
    noted = subprocess.run([sys.executable, "-m", "mindex", "install", "vscode"], cwd=project,
                           env={**os.environ, **ENV, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    assert noted.returncode == 0 and "is not on PATH here" in noted.stderr
    user = mindex(project, "install", "cursor", "--user")
    command = json.loads((Path(os.environ["HOME"]) / ".cursor" / "mcp.json").read_text())["mcpServers"]["mindex"]["command"]
    assert user["command"] == command and os.path.isabs(command) and os.access(command, os.X_OK)
    mindex(project, "uninstall", "cursor", "--user")


def test_a_config_path_that_cannot_be_read_is_a_clear_error(project: Path) -> None:
    (project / ".mcp.json").mkdir()  # a folder where the file should be
    err = mindex(project, "install", "claude-code", code=1)["error"]
    assert err["code"] == "CONFIG_ERROR" and "cannot read" in err["message"] and ".mcp.json" in err["message"]
    assert not (project / ".claude").exists()  # nothing written
    (project / ".mcp.json").rmdir()
    (project / ".mcp.json").write_bytes(b"\xff\xfe not utf-8")
    assert "cannot read" in mindex(project, "install", "claude-code", code=1)["error"]["message"]


def test_doctor_hints_name_what_an_installed_mindex_has(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow session-start hook pointed a pip user at benchmarks/README.md, which only a
    checkout has: the hint names commands instead."""
    from mindex.agents import doctor

    mindex(project, "add", ".", "--kind", "code")
    mindex(project, "index")
    monkeypatch.chdir(project)
    monkeypatch.setattr(doctor, "HOOK_TARGET_MS", 0.0)  # any real hook is "slow" against 0 ms
    check = doctor._hook_check(project)
    assert check["status"] == "warn" and "benchmarks" not in check["hint"]
    assert "`mindex -v hook session-start" in check["hint"] and "`mindex compact`" in check["hint"]
