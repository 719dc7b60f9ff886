"""Settings, read once at the front door and passed down as plain values.

Precedence, lowest first (as the core issue specifies): the project file
`.mindex/config.toml`, the user file (`~/.config/mindex/config.toml` or `$MINDEX_CONFIG`),
`MINDEX_*` environment variables (nested keys with `__`, e.g. `MINDEX_INDEX__CHUNK_SIZE`),
then command-line flags.
"""

from __future__ import annotations

import os
import tomllib
import typing
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

import platformdirs
import tomli_w
from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from mindex.errors import ConfigError

STATE_DIR = ".mindex"
DB_NAME = "index.db"


class IndexSettings(BaseModel):
    """How documents become chunks."""

    chunk_size: int = Field(1500, ge=200, le=20000)
    chunk_overlap: int = Field(200, ge=0, le=5000)
    max_file_bytes: int = Field(20 * 1024 * 1024, ge=1024)
    workers: int = Field(0, ge=0, description="parser processes; 0 = one per core")
    lock_timeout: float = Field(30.0, ge=0, description="seconds a writer waits for the lock")

    @model_validator(mode="after")
    def _overlap_below_size(self) -> IndexSettings:
        if self.chunk_overlap >= self.chunk_size // 2:
            raise ValueError("index.chunk_overlap must be under half of index.chunk_size")
        return self


# The model each provider uses when embed.model is not set.
DEFAULT_MODELS = {
    "onnx": "all-MiniLM-L6-v2",
    "ollama": "nomic-embed-text",
    "openai": "text-embedding-3-small",
    "voyage": "voyage-3.5",
}
_KEY_ENV = {"openai": "OPENAI_API_KEY", "voyage": "VOYAGE_API_KEY"}


def _key_from_env(given: SecretStr | None, variable: str | None) -> SecretStr | None:
    """A key set in a file wins; else the named environment variable's value, if set.

    Keys are read here, at the front door, so nothing below reads the environment.
    """
    value = os.environ.get(variable) if given is None and variable else None
    return SecretStr(value) if value else given


class ContextSettings(BaseModel):
    """Optional LLM-written context per chunk, embedded before the chunk (off by default)."""

    provider: str = Field("none", description="none, or llm (any OpenAI-compatible chat endpoint)")
    base_url: str | None = Field(None, description="chat endpoint base, with /v1")
    model: str = Field("", description="chat model that writes the context")
    api_key: SecretStr | None = None
    api_key_env: str | None = Field(None, description="variable holding the key; default OPENAI_API_KEY")
    concurrency: int = Field(4, ge=1, le=64)
    timeout: float = Field(60.0, gt=0)
    retries: int = Field(4, ge=0, le=20)
    backoff: float = Field(0.5, ge=0)
    max_requests: int | None = Field(None, ge=1, description="stop a run after this many chat requests")
    max_tokens: int | None = Field(None, ge=1, description="stop a run after about this many tokens")

    @model_validator(mode="after")
    def _key(self) -> ContextSettings:
        if self.provider != "none":
            self.api_key = _key_from_env(self.api_key, self.api_key_env or "OPENAI_API_KEY")
        return self


class EmbedSettings(BaseModel):
    """Which embedding model makes vectors, and how (local ONNX or an HTTP provider)."""

    provider: str = Field("onnx", description="onnx (local), ollama, openai, voyage, or none")
    model: str = Field("", description="model name, or a folder with model.onnx; empty: provider default")
    batch_size: int | None = Field(None, ge=1, le=2048, description="texts a request; empty: provider default")
    threads: int = Field(0, ge=0, description="ONNX Runtime threads; 0 = one per core")
    models_dir: Path | None = Field(None, description="where `models add` keeps converted models; empty: user cache")
    base_url: str | None = Field(None, description="HTTP providers: server URL (OpenAI-compatible: with /v1)")
    api_key: SecretStr | None = Field(None, description="HTTP providers: key (prefer api_key_env)")
    api_key_env: str | None = Field(None, description="variable holding the key; default OPENAI_API_KEY / VOYAGE_API_KEY")
    dimensions: int | None = Field(None, ge=1, description="ask the provider for this many dimensions")
    concurrency: int = Field(2, ge=1, le=64, description="HTTP requests in flight at once")
    timeout: float = Field(60.0, gt=0, description="seconds to wait for one HTTP answer")
    retries: int = Field(4, ge=0, le=20, description="retries on 429, 5xx, timeouts, dropped connections")
    backoff: float = Field(0.5, ge=0, description="first retry wait in seconds; doubles, with jitter")
    max_requests: int | None = Field(None, ge=1, description="stop an embedding run after this many requests")
    max_tokens: int | None = Field(None, ge=1, description="stop an embedding run after about this many tokens")
    query_prefix: str | None = Field(None, description="instruction put before queries (e5: 'query: ')")
    document_prefix: str | None = Field(None, description="instruction put before documents (e5: 'passage: ')")
    context: ContextSettings = ContextSettings()

    @model_validator(mode="after")
    def _defaults(self) -> EmbedSettings:
        if self.models_dir is None:
            self.models_dir = Path(platformdirs.user_cache_dir("mindex")) / "models"
        if not self.model:
            self.model = DEFAULT_MODELS.get(self.provider, "")
        self.api_key = _key_from_env(self.api_key, self.api_key_env or _KEY_ENV.get(self.provider))
        return self


class RerankSettings(BaseModel):
    """Optional second-stage ranking of the top fused candidates (off by default)."""

    provider: str = Field("none", description="none, local, http (Cohere/TEI auto), tei, cohere, voyage, llm")
    model: str = Field("", description="local: a model from `models add`; remote: the model name")
    base_url: str | None = Field(None, description="http/tei/llm: server URL (llm: OpenAI-compatible, with /v1)")
    api_key: SecretStr | None = None
    api_key_env: str | None = Field(None, description="variable holding the key; default COHERE_API_KEY / VOYAGE_API_KEY / OPENAI_API_KEY")
    candidates: int = Field(30, ge=2, le=200, description="how many fused results are reranked")
    timeout: float = Field(5.0, gt=0, description="seconds before falling back to the fused order")
    batch_size: int = Field(16, ge=1, le=256, description="local: pairs per model run")

    @model_validator(mode="after")
    def _key(self) -> RerankSettings:
        self.api_key = _key_from_env(self.api_key, self.api_key_env or _RERANK_KEY_ENV.get(self.provider))
        return self


_RERANK_KEY_ENV = {"cohere": "COHERE_API_KEY", "voyage": "VOYAGE_API_KEY", "llm": "OPENAI_API_KEY"}


DEFAULT_HALF_LIVES: dict[str, float] = {"memory": 30.0, "changelog": 180.0}


class SearchSettings(BaseModel):
    """How results are fused and ranked."""

    fusion: Literal["learned", "rrf"] = Field(
        "learned", description="how hybrid combines its legs: learned (the shipped ranker) or rrf")
    rrf_k: int = Field(60, ge=1, description="reciprocal rank fusion constant (fusion = rrf)")
    keyword_weight: float = Field(1.0, ge=0, description="weight of the keyword leg in fusion")
    semantic_weight: float = Field(1.0, ge=0, description="weight of the vector leg in fusion")
    merge_adjacent: bool = Field(False, description="merge neighbouring chunks of one file into one result")
    half_life_days: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_HALF_LIVES),
        description="recency decay per source kind (none for code and docs); 0 turns it off",
    )
    rerank: RerankSettings = RerankSettings()

    @field_validator("half_life_days", mode="before")
    @classmethod
    def _merge_half_lives(cls, given: Any) -> Any:
        """A table in a file or the environment adds to the defaults instead of replacing
        them (set a kind to 0 to turn its decay off)."""
        return {**DEFAULT_HALF_LIVES, **given} if isinstance(given, dict) else given



class ServeSettings(BaseModel):
    """How the MCP server answers."""

    token_budget: int = Field(4000, ge=200, description="max tokens (chars/4) of a tool answer")
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=1, le=65535)
    token: str | None = Field(None, description="bearer token the HTTP server requires")


class Settings(BaseSettings):
    """Every setting mindex reads; see the module docstring for precedence."""

    model_config = SettingsConfigDict(
        env_prefix="MINDEX_", env_nested_delimiter="__", extra="forbid"
    )

    db: Path | None = None
    index: IndexSettings = IndexSettings()
    embed: EmbedSettings = EmbedSettings()
    search: SearchSettings = SearchSettings()
    serve: ServeSettings = ServeSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Highest priority first: flags, environment, user file, project file.
        files = _config_files()
        return (
            init_settings,
            env_settings,
            *(TomlConfigSettingsSource(settings_cls, toml_file=path) for path in files),
        )


# The project root whose config file `Settings` reads; set by `load_settings` for one call.
_project_root: ContextVar[Path | None] = ContextVar("mindex_project_root", default=None)


def user_config_path() -> Path:
    """Return the user-level config file (it may not exist)."""
    override = os.environ.get("MINDEX_CONFIG")
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("mindex")) / "config.toml"


def _config_files() -> list[Path]:
    root = _project_root.get() or find_project_root(Path.cwd())
    files = [user_config_path(), root / STATE_DIR / "config.toml"]
    return [path for path in files if path.is_file()]


def find_project_root(start: Path) -> Path:
    """Find the project root like git does: the nearest folder holding `.mindex`, else `.git`."""
    start = start.resolve()
    for marker in (STATE_DIR, ".git"):
        for folder in (start, *start.parents):
            if (folder / marker).exists():
                return folder
    return start


def load_settings(cwd: Path | None = None, **flags: Any) -> Settings:
    """Read settings from files and environment, with `flags` (non-None) on top.

    Raises:
        ConfigError: a file or value is invalid; the message names the key.
    """
    token = _project_root.set(find_project_root(cwd or Path.cwd()))
    given = {key: value for key, value in flags.items() if value is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(
            f"invalid setting ({problems}); fix it in .mindex/config.toml, "
            f"{user_config_path()} or the MINDEX_* environment"
        ) from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read config: {exc}; fix the TOML syntax and retry") from None
    finally:
        _project_root.reset(token)


def resolve_db_path(settings: Settings, cwd: Path | None = None) -> Path:
    """Return the database path: `--db`/`MINDEX_DB`, else `<project root>/.mindex/index.db`."""
    if settings.db is not None:
        return settings.db.expanduser().resolve()
    return find_project_root(cwd or Path.cwd()) / STATE_DIR / DB_NAME


def project_config_path(cwd: Path | None = None) -> Path:
    """Return the project's config file (it may not exist)."""
    return find_project_root(cwd or Path.cwd()) / STATE_DIR / "config.toml"


def _parse_value(raw: str) -> Any:
    """A TOML literal (`32`, `true`, `1.5`, `["a"]`) if it is one, else the plain string."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def _check_key(key: str) -> tuple[list[str], Any]:
    """The key's parts and the type of its value; a key may go one level into a table of
    free keys (`search.half_life_days.docs`).

    Raises:
        ConfigError: no such setting, or the key names a whole section.
    """
    parts = key.split(".")
    model: Any = Settings
    for depth, part in enumerate(parts):
        if typing.get_origin(model) is dict and depth == len(parts) - 1:
            return parts, typing.get_args(model)[1]
        fields = getattr(model, "model_fields", None)
        if fields is None or part not in fields:
            known = ", ".join(sorted(fields)) if fields else "none (it is a value)"
            where = ".".join(parts[:depth]) or "top level"
            raise ConfigError(f"unknown setting {key!r}; keys under {where}: {known}")
        model = fields[part].annotation
    if isinstance(model, type) and issubclass(model, BaseModel):
        raise ConfigError(f"{key!r} is a section; set one of its keys, e.g. {key}.{next(iter(model.model_fields))}")
    return parts, model


def is_secret(key: str) -> bool:
    """True for settings whose value must never be printed (API keys)."""
    try:
        return _check_key(key)[1] in (SecretStr, SecretStr | None)
    except ConfigError:
        return False


def write_setting(file: Path, key: str, raw: str | None) -> Any:
    """Set (or with `raw=None` remove) dotted `key` in a TOML config file; returns the value.

    The file is validated as a whole before it is written, so a bad value never lands.

    Raises:
        ConfigError: unknown key, a value the setting refuses, or an unreadable file.
    """
    parts, kind = _check_key(key)
    try:
        data = tomllib.loads(file.read_text()) if file.is_file() else {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {file}: {exc}; fix or delete it and retry") from None
    table = data
    for part in parts[:-1]:
        table = table.setdefault(part, {})
    value = None if raw is None else _parse_value(raw)
    if value is None:
        table.pop(parts[-1], None)
    else:
        if kind in (str, str | None, SecretStr, SecretStr | None):
            value = raw  # text settings take the text as typed: embed.model = 3 is "3"
        table[parts[-1]] = value
    try:
        Settings.model_validate(data)
    except ValidationError as exc:
        problems = ", ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        shown = "the value given" if kind in (SecretStr, SecretStr | None) else repr(raw)
        raise ConfigError(f"{key} = {shown} is not valid ({problems}); see `mindex config show`") from None
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(tomli_w.dumps(data))
    return value


def settings_view(settings: Settings) -> dict[str, Any]:
    """The effective settings as plain data; pydantic masks every SecretStr."""
    data: dict[str, Any] = settings.model_dump(mode="json")
    return data
