"""Settings, read once at the front door and passed down as plain values.

Precedence, lowest first (as the core issue specifies): the project file
`.mindex/config.toml`, the user file (`~/.config/mindex/config.toml` or `$MINDEX_CONFIG`),
`MINDEX_*` environment variables (nested keys with `__`, e.g. `MINDEX_INDEX__CHUNK_SIZE`),
then command-line flags.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, Field, ValidationError, model_validator
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


class EmbedSettings(BaseModel):
    """Which embedding model makes vectors, and how."""

    provider: str = Field("onnx", description="onnx (local), or none for keyword only")
    model: str = Field("all-MiniLM-L6-v2", description="model name or a folder with model.onnx")
    batch_size: int = Field(16, ge=1, le=512)
    threads: int = Field(0, ge=0, description="ONNX Runtime threads; 0 = one per core")


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
