from __future__ import annotations

import importlib
import os
import pkgutil
import tempfile
from pathlib import Path

import pytest

import mindex
from mindex.config import (
    EmbedSettings,
    IndexSettings,
    RerankSettings,
    SearchSettings,
    SecretStr,
    Settings,
    find_project_root,
    load_settings,
    resolve_db_path,
    settings_view,
)
from mindex.errors import ConfigError


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_precedence_project_then_user_then_env_then_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / ".mindex/config.toml", "[index]\nchunk_size = 1000\nchunk_overlap = 10\nworkers = 1\n")
    write(tmp_path / "user-config.toml", "[index]\nchunk_overlap = 20\nworkers = 2\n")
    monkeypatch.setenv("MINDEX_INDEX__WORKERS", "3")
    settings = load_settings(cwd=tmp_path)
    assert (settings.index.chunk_size, settings.index.chunk_overlap, settings.index.workers) == (1000, 20, 3)
    flagged = load_settings(cwd=tmp_path, db=tmp_path / "flag.db")
    assert flagged.db == tmp_path / "flag.db"
    monkeypatch.setenv("MINDEX_DB", str(tmp_path / "env.db"))
    assert load_settings(cwd=tmp_path).db == tmp_path / "env.db"
    assert load_settings(cwd=tmp_path, db=tmp_path / "flag.db").db == tmp_path / "flag.db"


def test_project_root_is_found_like_git(tmp_path: Path) -> None:
    (tmp_path / "repo/.git").mkdir(parents=True)
    (tmp_path / "repo/a/b").mkdir(parents=True)
    assert find_project_root(tmp_path / "repo/a/b") == tmp_path / "repo"
    (tmp_path / "repo/a/.mindex").mkdir()
    assert find_project_root(tmp_path / "repo/a/b") == tmp_path / "repo/a"
    settings = load_settings(cwd=tmp_path / "repo/a/b")
    assert resolve_db_path(settings, tmp_path / "repo/a/b") == tmp_path / "repo/a/.mindex/index.db"


def test_bad_values_name_the_key_and_where_to_fix_it(tmp_path: Path) -> None:
    write(tmp_path / ".mindex/config.toml", "[index]\nchunk_overlap = 900\n")
    with pytest.raises(ConfigError, match="chunk_overlap must be under half"):
        load_settings(cwd=tmp_path)
    write(tmp_path / ".mindex/config.toml", "[index\nbroken")
    with pytest.raises(ConfigError, match="TOML"):
        load_settings(cwd=tmp_path)
    write(tmp_path / ".mindex/config.toml", "unknown_key = 1\n")
    with pytest.raises(ConfigError, match="unknown_key"):
        load_settings(cwd=tmp_path)
    # TOML reads nan and inf: a hook waiting `inf` seconds would hang the agent
    write(tmp_path / ".mindex/config.toml", "[agents]\nhook_lock_timeout = inf\n[search.half_life_days]\nmemory = nan\n")
    with pytest.raises(ConfigError, match=r"hook_lock_timeout: should be a finite number, not inf.*"
                                          r"half_life_days.memory: should be a finite number, not nan|"
                                          r"half_life_days.memory: should be a finite number, not nan.*"
                                          r"hook_lock_timeout: should be a finite number, not inf"):
        load_settings(cwd=tmp_path)


def test_public_api_is_exported() -> None:
    for name in mindex.__all__:
        assert hasattr(mindex, name), name
    assert {"Index", "MindexError", "SearchResult", "Hit"} <= set(mindex.__all__)


def test_every_module_imports() -> None:
    for info in pkgutil.walk_packages(mindex.__path__, "mindex."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)


def _run(args: list[str], code: int = 0) -> str:
    from click.testing import CliRunner

    from mindex.serve.cli import cli

    result = CliRunner().invoke(cli, args)
    assert result.exit_code == code, result.output + result.stderr
    return result.stdout + result.stderr


def test_config_set_writes_typed_values_that_later_commands_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MINDEX_EMBED__PROVIDER")
    _run(["config", "set", "embed.provider", "ollama"])
    _run(["config", "set", "embed.batch_size", "32"])
    _run(["config", "set", "embed.base_url", "http://gpu-box:11434"])
    text = (tmp_path / ".mindex" / "config.toml").read_text()
    assert 'provider = "ollama"' in text and "batch_size = 32" in text
    settings = load_settings(cwd=tmp_path)
    assert (settings.embed.provider, settings.embed.batch_size, settings.embed.model) == ("ollama", 32, "nomic-embed-text")
    assert _run(["config", "show", "embed.provider"]).strip() == "ollama"
    _run(["config", "unset", "embed.batch_size"])
    assert load_settings(cwd=tmp_path).embed.batch_size is None


def test_config_set_refuses_unknown_keys_and_bad_values_without_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _run(["config", "set", "index.chunk_size", "1000"])
    before = (tmp_path / ".mindex" / "config.toml").read_text()
    assert "chunk_size" in _run(["config", "set", "index.chunk_sise", "1"], code=1)
    assert "greater than or equal to 200" in _run(["config", "set", "index.chunk_size", "10"], code=1)
    assert "is a section" in _run(["config", "set", "embed", "x"], code=1)
    assert (tmp_path / ".mindex" / "config.toml").read_text() == before
    latin = b'[index]\nexclude = ["caf\xe9"]\n'  # written by an editor set to Latin-1
    (tmp_path / ".mindex" / "config.toml").write_bytes(latin)
    assert "is not UTF-8 (byte 23); save it as UTF-8" in _run(["config", "set", "index.chunk_size", "1000"], code=1)
    assert (tmp_path / ".mindex" / "config.toml").read_bytes() == latin
    with pytest.raises(ConfigError, match="is not UTF-8"):
        load_settings(cwd=tmp_path)


def test_config_set_user_writes_the_user_file_and_show_masks_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _run(["config", "set", "embed.api_key", "sk-live-abc", "--user"])
    assert "sk-live-abc" in (tmp_path / "user-config.toml").read_text()
    shown = _run(["config", "show", "--json"])
    assert "sk-live-abc" not in shown and "********" in shown


def test_tests_run_in_a_throwaway_home_not_the_users() -> None:
    """The README's first command fills the real user cache; no test may see it."""
    home = Path(os.environ["_MINDEX_TEST_HOME"])
    assert Path.home() == home and Path.cwd() != Path(__file__).parent.parent
    models_dir = EmbedSettings().models_dir
    assert models_dir is not None and models_dir.is_relative_to(tempfile.gettempdir())


def test_files_and_environment_are_typed_checked_and_name_the_bad_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / ".mindex/config.toml", "[search.rerank]\nprovder = 'local'\n")
    with pytest.raises(ConfigError, match=r"search\.rerank\.provder: not a setting"):
        load_settings(cwd=tmp_path)
    write(tmp_path / ".mindex/config.toml", "[search]\nmerge_adjacent = 'yes'\nrrf_k = 30.0\n")
    monkeypatch.setenv("MINDEX_SEARCH__HALF_LIFE_DAYS__DOCS", "7")
    monkeypatch.setenv("MINDEX_EMBED__API_KEY", "sk-env")
    monkeypatch.setenv("MINDEX_CONFIG_UNRELATED", "ignored")
    settings = load_settings(cwd=tmp_path)
    assert settings.search.merge_adjacent is True and settings.search.rrf_k == 30
    assert settings.search.half_life_days == {"memory": 30.0, "knowledge": 180.0, "changelog": 180.0, "docs": 7.0}
    assert settings.embed.api_key is not None and settings.embed.api_key.get_secret_value() == "sk-env"
    assert "sk-env" not in repr(settings) and "sk-env" not in str(settings_view(settings))
    monkeypatch.setenv("MINDEX_INDEX__WORKERS", "two")
    with pytest.raises(ConfigError, match=r"index\.workers: should be an integer, not 'two'"):
        load_settings(cwd=tmp_path)


def test_sections_built_in_python_check_their_values_too() -> None:
    assert Settings(serve={"token_budget": 300}).serve.token_budget == 300  # type: ignore[arg-type]
    assert RerankSettings(api_key="k").api_key == SecretStr("k")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="chunk_size: should be greater than or equal to 200"):
        IndexSettings(chunk_size=10)
    with pytest.raises(ValueError, match="fusion: should be one of 'auto', 'learned', 'rrf'"):
        SearchSettings(fusion="best")
