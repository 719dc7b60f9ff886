"""`mindex add` without `--kind` reads a folder of code as code: a folder of Python added as
docs was indexed as its few Markdown files, and grep and search found none of its code."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from mindex import Index
from mindex.serve.cli import cli
from mindex.sources import guess
from mindex.sources.guess import guess_kind


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


CODE = {"README.md": "# Tool\n\nRetries with jitter.\n", "docs/usage.md": "# Usage\n",
        "tool/__init__.py": "", "tool/retry.py": "def backoff_with_jitter(attempt):\n    return 2 ** attempt\n",
        "tool/cli.py": "import sys\n", "tests/test_retry.py": "def test_backoff():\n    pass\n",
        "settings.json": "{}", "ci.yaml": "on: push\n"}
DOCS = {"index.md": "# Guide\n", "pooling.md": "# Pooling\n\nIdle connections.\n", "faq.rst": "FAQ\n===\n",
        "page.html": "<h1>Page</h1>", "notes.txt": "notes", "conf.py": "project = 'x'\n"}


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MINDEX_EMBED__PROVIDER", "none")
    done = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert done.exit_code == 0, done.output + done.stderr
    return done.stdout


def test_a_folder_of_code_is_added_as_code_and_its_code_is_found(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    project = _write(tmp_path / "project", CODE)
    said = _run(tmp_path, monkeypatch, "add", str(project))
    assert "as code (4 source files of code, 2 of docs; --kind docs" in said
    assert json.loads(_run(tmp_path, monkeypatch, "sources", "--json"))["sources"][0]["kind"] == "code"
    _run(tmp_path, monkeypatch, "index", "-q")
    found = json.loads(_run(tmp_path, monkeypatch, "grep", "def backoff_with_jitter", "--json"))
    assert [(m["path"], m["line"]) for m in found["matches"]] == [("tool/retry.py", 1)]
    hits = json.loads(_run(tmp_path, monkeypatch, "search", "backoff jitter", "--json"))["results"]
    assert "tool/retry.py" in {hit["path"] for hit in hits}


def test_a_folder_of_docs_stays_docs_and_a_kind_given_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs, again = _write(tmp_path / "guide", DOCS), _write(tmp_path / "guide2", DOCS)
    code, code2 = _write(tmp_path / "project", CODE), _write(tmp_path / "project2", CODE)
    added = json.loads(_run(tmp_path, monkeypatch, "add", str(docs), "--json"))
    assert (added["kind"], added["kind_guessed"]) == ("docs", True)
    assert "as docs (1 source file of code, 5 of docs; --kind code" in _run(tmp_path, monkeypatch, "add", str(again))
    kept = json.loads(_run(tmp_path, monkeypatch, "add", str(code), "--kind", "docs", "--json"))
    assert (kept["kind"], kept["kind_guessed"]) == ("docs", False)
    assert "source files" not in _run(tmp_path, monkeypatch, "add", str(code2), "--kind", "code")
    kinds = {s["name"]: s["kind"] for s in json.loads(_run(tmp_path, monkeypatch, "sources", "--json"))["sources"]}
    assert kinds == {"guide": "docs", "guide2": "docs", "project": "docs", "project2": "code"}


def test_the_guess_skips_tooling_and_vendored_folders_and_links(tmp_path: Path) -> None:
    folder = _write(tmp_path / "site", {"a.md": "", "b.md": "", "c.rst": "", "app.py": "",
                                        "node_modules/lib/x.js": "", "node_modules/lib/y.js": "",
                                        ".venv/lib/z.py": "", ".hidden/w.py": "", "__pycache__/v.py": ""})
    elsewhere = _write(tmp_path / "elsewhere", {f"m{n}.py": "" for n in range(10)})
    os.symlink(elsewhere, folder / "linked", target_is_directory=True)
    guess = guess_kind(folder)
    assert (guess.kind, guess.code_files, guess.doc_files) == ("docs", 1, 3)
    assert guess_kind(tmp_path / "missing") == guess_kind(tmp_path / "missing")  # no error: adding it says why
    assert guess_kind(tmp_path / "missing").kind == "docs"


def test_the_guess_counts_a_level_of_folders_whole_then_stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A repository's `docs/` and `src/` are both counted, whatever their sizes and names (a
    walk depth first in name order stopped inside a large `docs/`); past `LOOK_AT`, no deeper
    level is read."""
    import mindex.sources.guess as guess

    monkeypatch.setattr(guess, "LOOK_AT", 20)
    repo = _write(tmp_path / "repo", {**{f"docs/page{n}.md": "" for n in range(30)},
                                      **{f"src/mod{n}.py": "" for n in range(40)},
                                      **{f"src/deep/more/notes{n}.md": "" for n in range(100)}})
    found = guess_kind(repo)
    assert (found.kind, found.code_files, found.doc_files) == ("code", 40, 30)
    monkeypatch.setattr(guess, "MAX_FOLDERS", 2)  # the root and `docs/`: `src/` is never listed
    assert guess_kind(repo) == guess.Guess("docs", 0, 30)


def test_the_python_api_guesses_too(tmp_path: Path) -> None:
    project = _write(tmp_path / "project", CODE)
    with Index(tmp_path / "index.db") as index:
        assert index.add_source(project).kind == "code"  # auto unless a kind is given
        assert index.add_source(_write(tmp_path / "guide", DOCS), kind="auto").kind == "docs"
        with pytest.raises(Exception, match="or auto"):
            index.add_source(project, name="x", kind="pictures")


def test_a_repository_whose_docs_outnumber_its_code_is_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest's sdist (266 files of code, 271 of reStructuredText and Markdown) was added as
    docs, and none of its code was read. A code source reads Markdown and reStructuredText as
    docs too, so a project (a manifest at its top) is code whenever its code outnumbers its
    HTML and PDF, which only a docs source reads as docs; a folder that is no project (a
    `docs/` with its Sphinx `conf.py`) keeps the rule of more code than docs."""
    prose = {f"doc/page{n}.rst": f"Page {n}\n=======\n\nText.\n" for n in range(12)}
    code = {f"src/pkg/mod{n}.py": f"def handler_{n}():\n    return {n}\n" for n in range(10)}
    repo = _write(tmp_path / "repo", {**prose, **code, "README.md": "# Repo\n"})
    assert guess_kind(repo) == guess.Guess("docs", 10, 13)  # no manifest: more docs than code
    (repo / "pyproject.toml").write_text("[project]\nname = 'repo'\n")
    assert guess_kind(repo) == guess.Guess("code", 10, 13, "pyproject.toml")
    assert guess_kind(repo).reason() == "10 source files of code, 13 of docs, a project with pyproject.toml"
    said = _run(tmp_path, monkeypatch, "add", str(repo))
    assert "as code (10 source files of code, 13 of docs, a project with pyproject.toml; --kind docs" in said
    _run(tmp_path, monkeypatch, "index", "-q")
    found = json.loads(_run(tmp_path, monkeypatch, "grep", "def handler_7", "--json"))["matches"]
    assert [(m["path"], m["line"]) for m in found] == [("src/pkg/mod7.py", 1)]
    docs = json.loads(_run(tmp_path, monkeypatch, "search", "Page 3", "--kind", "docs", "--json"))["results"]
    assert docs and docs[0]["path"] == "doc/page3.rst"  # still docs, in a code source

    sphinx = _write(tmp_path / "sphinx", {"conf.py": "project = 'x'\n", "index.rst": "Index\n=====\n"})
    assert guess_kind(sphinx).kind == "docs"  # one of each, no project: docs
    site = _write(tmp_path / "site", {**{f"api/p{n}.html": "<h1>P</h1>" for n in range(12)},
                                      **{f"js/s{n}.js": "var x = 1;\n" for n in range(10)}, "package.json": "{}"})
    assert guess_kind(site).kind == "docs"  # a project, but its HTML (read as docs only by docs) outnumbers its code
