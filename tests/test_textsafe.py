"""Undecodable bytes in file names and queries: indexed, searched and printed in every mode
and output format, never a crash."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from mindex.serve.cli import cli
from mindex.textsafe import escape_surrogates, markup_escape

BAD_QUERY = "json\udcff"  # what Python makes of the argument b"json\xff"


def test_escape_surrogates_is_visible_and_leaves_good_text_alone() -> None:
    assert escape_surrogates("caf\udce9.md") == "caf\\xe9.md"
    assert escape_surrogates("a\ud800b") == "a\\ud800b"
    assert escape_surrogates("café ☃") == "café ☃"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A docs folder and a code folder whose file names hold an undecodable byte."""
    docs, code = tmp_path / "docs", tmp_path / "code"
    docs.mkdir()
    code.mkdir()
    (docs / os.fsdecode(b"caf\xe9.md")).write_text("# Cafe\n\nThe json parser of the cafe.\n")
    (code / os.fsdecode(b"m\xe9.py")).write_text("def json_thing():\n    return 'caf\\xe9'\n")
    return tmp_path


def _run(*args: str, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_undecodable_names_and_queries_work_in_every_mode_and_format(tree: Path, mode: str) -> None:
    env = {"MINDEX_EMBED__PROVIDER": "onnx"}
    _run("add", str(tree / "docs"), env=env)
    _run("add", str(tree / "code"), "--kind", "code", env=env)
    _run("index", "-q", env=env)
    data = json.loads(_run("search", BAD_QUERY, "--mode", mode, "--json", env=env))
    assert data["query"] == "json\\xff"
    paths = {hit["path"] for hit in data["results"]}
    assert {"caf\\xe9.md", "m\\xe9.py"} <= paths
    text = _run("search", BAD_QUERY, "--mode", mode, env=env)
    assert "caf\\xe9.md" in text
    filtered = json.loads(_run("search", "json", "--mode", mode, "--path", "caf\udce9*", "--json", env=env))
    assert [hit["path"] for hit in filtered["results"]] == ["caf\\xe9.md"]


def test_grep_with_undecodable_pattern_and_names_prints_json_and_text(tree: Path) -> None:
    _run("add", str(tree / "code"), "--kind", "code")
    _run("index", "-q")
    data = json.loads(_run("grep", "json", "--json"))
    assert [m["path"] for m in data["matches"]] == ["m\\xe9.py"]
    assert "m\\xe9.py:1:def json_thing():" in _run("grep", "json")
    result = CliRunner().invoke(cli, ["grep", "json\udcff", "--json"], catch_exceptions=False)
    assert result.exit_code == 3 and json.loads(result.stdout)["matches"] == []


@pytest.mark.parametrize("text", ["[bold]x[/]", "a\\[b]", "ends\\", "ends\\\\", "[1] y", "\\\\[red]z", "[#fff]",
                                  "[@click]", "x[/", "no brackets", "[[a]]", "é [link=x]", "x = a + \\"])
def test_markup_escape_prints_text_literally_alone_and_inside_markup(text: str) -> None:
    from rich.console import Console

    for shown in (markup_escape(text), f"[bold]{markup_escape(text)}[/] [dim]tail[/]"):
        console = Console(record=True, width=200)
        console.print(shown, highlight=False)
        assert console.export_text().rstrip("\n") in (text, f"{text} tail")


def test_plain_printing_shows_what_rich_shows_without_a_terminal() -> None:
    """Output into a pipe skips rich's import; it must be the very characters rich prints
    there: markup read by rich's grammar (escapes, stray brackets, backslash runs), control
    characters dropped, several objects joined by `sep`, `markup=False` literal."""
    import io
    import random

    from rich.console import Console
    from rich.errors import MarkupError

    from mindex.serve.clikit import _PlainConsole

    rng = random.Random(7)
    pieces = ["[", "]", "\\", "\\\\", "/", "a", "bold", " ", "\x07", "\r", "\x1b", "\x0c", "\x00", "é", "漢", "\n",
              "[/]", "[bold]", "[dim]", "[/dim]", "[link=http://x]", "#", "@", "=", ":smile:", "x" * 90, "\u2028"]
    compared = 0
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        if rng.random() < 0.5:  # as our commands build lines: escaped values inside our markup
            text = f"[bold]{markup_escape(text)}[/] [dim]{markup_escape(text[::-1])}[/dim]"
        for markup in (None, False):
            theirs, ours = io.StringIO(), io.StringIO()
            try:
                Console(file=theirs, soft_wrap=True, emoji=False).print(text, text[:3], highlight=False, markup=markup)
            except MarkupError:  # unbalanced tags: rich refuses them; our lines never hold one
                continue
            _PlainConsole(lambda: ours, lambda: Console(file=ours)).print(text, text[:3], highlight=False, markup=markup)
            assert ours.getvalue() == theirs.getvalue(), repr(text)
            compared += 1
    assert compared > 6000
    tabbed = io.StringIO()  # tabs expand by cell width: left to rich
    _PlainConsole(lambda: tabbed, lambda: Console(file=tabbed, soft_wrap=True)).print("漢\tx")
    assert tabbed.getvalue() == "漢      x\n"
