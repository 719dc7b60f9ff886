"""Baselines: run a lint, typecheck or test command and read its error and warning counts
from the summary the tool prints (ruff, flake8, eslint, mypy, tsc, pyright). For a tool not
known here only the exit code and the number of output lines are kept.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import time
from pathlib import Path

from mindex.store.workflows import Baseline
from mindex.errors import WorkflowInputError

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LOCATED = r"^\S.*?:\d+:\d+:?\s+"


def _count(rx: str, text: str) -> int:
    return len(re.findall(rx, text, re.MULTILINE))


def _int(m: re.Match[str] | None, group: int | str = 1) -> int | None:
    return int(m.group(group)) if m and m.group(group) is not None else None


def parse(tool: str | None, output: str) -> tuple[str | None, int | None, int | None]:
    """(tool, errors, warnings) read from a command's output; the tool is detected from the
    output when `tool` is None. Unknown output gives (tool, None, None)."""
    text = _ANSI.sub("", output)
    detected = tool or detect(text)
    if detected == "mypy":
        if re.search(r"^Success: no issues found", text, re.MULTILINE):
            return "mypy", 0, 0
        errors = _int(re.search(r"^Found (\d+) errors? in \d+ files?", text, re.MULTILINE))
        return "mypy", errors if errors is not None else _count(r":\d+: error:", text), _count(r":\d+: warning:", text)
    if detected == "ruff":
        if re.search(r"^All checks passed!", text, re.MULTILINE):
            return "ruff", 0, 0
        found = _int(re.search(r"^Found (\d+) errors?\b", text, re.MULTILINE))
        return "ruff", found if found is not None else _count(_LOCATED + r"[A-Z]+\d+\b", text), 0
    if detected == "eslint":
        m = re.search(r"(\d+) problems? \((\d+) errors?, (\d+) warnings?\)", text)
        return ("eslint", int(m.group(2)), int(m.group(3))) if m else ("eslint", 0, 0)
    if detected == "tsc":
        m = re.search(r"^Found (\d+) errors?\b", text, re.MULTILINE)
        return "tsc", int(m.group(1)) if m else _count(r"\berror TS\d+:", text), 0
    if detected == "pyright":
        m = re.search(r"(\d+) errors?, (\d+) warnings?, (\d+) (?:informations?|notes?)", text)
        if m:
            return "pyright", int(m.group(1)), int(m.group(2))
        return "pyright", _count(r"- error:", text), _count(r"- warning:", text)
    if detected == "flake8":
        errors = _count(_LOCATED + r"[EFC]\d{3}\b", text)
        warnings = _count(_LOCATED + r"W\d{3}\b", text)
        return "flake8", errors, warnings
    return detected, None, None


def detect(text: str) -> str | None:
    """The tool whose summary or message format the output shows."""
    if re.search(r"^(Success: no issues found in \d+ source files?|Found \d+ errors? in \d+ files? \(checked)",
                 text, re.MULTILINE) or re.search(r":\d+: error: .*\[[a-z-]+\]$", text, re.MULTILINE):
        return "mypy"
    if re.search(r"\d+ errors?, \d+ warnings?, \d+ (?:informations?|notes?)", text):
        return "pyright"
    if re.search(r"\d+ problems? \(\d+ errors?, \d+ warnings?\)", text):
        return "eslint"
    if re.search(r"\berror TS\d+:", text) or re.search(r"^Found \d+ errors? in .*\.tsx?\b", text, re.MULTILINE):
        return "tsc"
    if re.search(r"^All checks passed!|^Found \d+ errors?\.\s*$|\[\*\] \d+ fixable", text, re.MULTILINE):
        return "ruff"
    if re.search(_LOCATED + r"[EWFC]\d{3}\s", text, re.MULTILINE):
        return "flake8"
    return None


def tool_of(command: str) -> str | None:
    """The known tool a command runs (`uv run mypy src`, `npx eslint .`), if any."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for word in words:
        name = Path(word).name
        if name in ("ruff", "flake8", "eslint", "mypy", "tsc", "pyright"):
            return name
    return None


def run_check(check: str, command: str, cwd: Path, timeout: float = 600.0) -> Baseline:
    """Run one command through the shell in `cwd` and read its counts."""
    if not command.strip():
        raise WorkflowInputError(f"the {check} command is empty")
    started = time.perf_counter()
    try:
        done = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, errors="replace",
                              timeout=timeout)
        code: int | None = done.returncode
        output = (done.stdout or "") + (done.stderr or "")
    except subprocess.TimeoutExpired as exc:
        code, output = None, (exc.stdout or "") if isinstance(exc.stdout, str) else ""
    seconds = time.perf_counter() - started
    tool, errors, warnings = parse(tool_of(command), output)
    if code == 127:
        raise WorkflowInputError(f"{check}: `{command}` was not found (exit 127); install it or give another command")
    return Baseline(check, command, tool, code, errors, warnings, len(output.splitlines()), seconds, time.time())
