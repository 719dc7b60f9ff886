"""Shared fixtures: a fresh copy of the fixture docs and real index files in tmp_path."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from mindex import Index, IndexSettings
from mindex.config import EmbedSettings

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config or MINDEX_* variable of the machine leaks into a test."""
    import os

    for key in list(os.environ):
        if key.startswith("MINDEX_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("MINDEX_CONFIG", str(tmp_path / "user-config.toml"))
    # Keyword-only unless a test asks for the model: fast, and ranking tests stay exact.
    monkeypatch.setenv("MINDEX_EMBED__PROVIDER", "none")


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    """A writable copy of tests/fixtures/docs."""
    target = tmp_path / "docs"
    shutil.copytree(FIXTURES / "docs", target)
    return target


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    """An empty index in a real SQLite file."""
    with Index(tmp_path / "state" / "index.db", IndexSettings(workers=1), embed=EmbedSettings(provider="none")) as ix:
        yield ix


@pytest.fixture
def indexed(index: Index, docs_dir: Path) -> Index:
    """The fixture docs registered as source `docs` and indexed."""
    index.add_source(docs_dir, name="docs")
    index.index()
    return index
