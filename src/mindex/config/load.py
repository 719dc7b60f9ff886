"""Reading settings: the project and user files and `MINDEX_*` variables merged, each value
checked against its section's field; where the index and the project are."""


from __future__ import annotations

import os
import re
from contextvars import ContextVar
from dataclasses import fields
from pathlib import Path
from typing import Any

from mindex.errors import ConfigError
from mindex.roots import project_root
from mindex.config.sections import DB_NAME, InvalidSettings, STATE_DIR, Section, Settings, build_section, user_dir


def _deep_merge(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    merged = dict(low)
    for key, value in high.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _from_environment() -> dict[str, Any]:
    """`MINDEX_A__B=v` as `{"a": {"b": "v"}}`, for the keys that are settings (others, such
    as MINDEX_CONFIG, are read where they are used)."""
    table: dict[str, Any] = {}
    for name, value in os.environ.items():
        if not name.upper().startswith("MINDEX_"):  # names are case-insensitive, as before
            continue
        path = name[len("MINDEX_"):].lower().split("__")
        if kind_of(path)[0] is None:
            continue
        node = table
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[path[-1]] = value
    return table


# The project root whose config file `load_settings` reads; set for one call.
_project_root: ContextVar[Path | None] = ContextVar("mindex_project_root", default=None)


def user_config_path() -> Path:
    """Return the user-level config file (it may not exist)."""
    override = os.environ.get("MINDEX_CONFIG")
    if override:
        return Path(override)
    return user_dir("config") / "config.toml"


def _config_files() -> list[Path]:
    """The config files that exist, lowest precedence first: the project's, then the user's."""
    root = _project_root.get() or find_project_root(Path.cwd())
    files = [root / STATE_DIR / "config.toml", user_config_path()]
    return [path for path in files if path.is_file()]


def find_project_root(start: Path) -> Path:
    """Find the project root like git does: the nearest folder holding `.mindex`, else `.git`."""
    return Path(project_root(str(start)))


def read_toml(path: Path) -> dict[str, Any]:
    """A config file's tables; a file that cannot be read is a ConfigError naming why."""
    import tomllib  # here, not at the top: most runs have no config file to read

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}; check that it is a readable file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config {path} is not UTF-8 (byte {exc.start}); save it as UTF-8 and retry") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path} is not valid TOML ({exc}); fix it (or delete it) and retry") from None


def load_settings(cwd: Path | None = None, **flags: Any) -> Settings:
    """Read settings from files and environment, with `flags` (non-None) on top.

    Raises:
        ConfigError: a file or value is invalid; the message names the key.
    """
    token = _project_root.set(find_project_root(cwd or Path.cwd()))
    try:
        layers: dict[str, Any] = {}
        for path in _config_files():
            layers = _deep_merge(layers, read_toml(path))
        layers = _deep_merge(layers, _from_environment())
        layers = _deep_merge(layers, {key: value for key, value in flags.items() if value is not None})
        settings: Settings = build_section(Settings, layers)
        return settings
    except InvalidSettings as exc:
        raise ConfigError(
            f"invalid setting ({exc}); fix it in .mindex/config.toml, "
            f"{user_config_path()} or the MINDEX_* environment"
        ) from None
    finally:
        _project_root.reset(token)


def db_target(value: Path | str) -> Path | str:
    """A `--db` value as the store it names: a `postgresql://` (or `postgres://`) URL stays a
    string (a `Path` made of one keeps a single `/`, which is put back), anything else is a
    file path. Other URL schemes are refused.

    Raises:
        ConfigError: a URL of a server mindex cannot use.
    """
    text = str(value)
    pg = re.match(r"^(postgres(?:ql)?):/+", text, re.IGNORECASE)
    if pg:
        return f"{pg.group(1)}://{text[pg.end():]}"
    scheme = re.match(r"^([A-Za-z][\w+.-]+):/", text)
    if scheme and len(scheme.group(1)) > 1:  # not a Windows drive letter
        raise ConfigError(f"--db / MINDEX_DB names a {scheme.group(1)} server; mindex keeps an index in a SQLite file "
                          "or in PostgreSQL: give a file path such as .mindex/index.db or a postgresql:// URL")
    return Path(value).expanduser().resolve()


def resolve_db_path(settings: Settings, cwd: Path | None = None) -> Path | str:
    """Return the index: `--db`/`MINDEX_DB` (a file path, or a postgresql:// URL as a string),
    else `<project root>/.mindex/index.db`."""
    if settings.db is not None:
        return db_target(settings.db)
    return find_project_root(cwd or Path.cwd()) / STATE_DIR / DB_NAME


def project_config_path(cwd: Path | None = None) -> Path:
    """Return the project's config file (it may not exist)."""
    return find_project_root(cwd or Path.cwd()) / STATE_DIR / "config.toml"


def kind_of(parts: list[str]) -> tuple[str | None, int]:
    """The type a dotted path of settings names (a section's class name for a section; a
    path may go one level into a table of free keys: `search.half_life_days.docs`), or None
    and how many of its parts were known."""
    kind = "Settings"
    for depth, part in enumerate(parts):
        if kind.startswith("dict[str, ") and depth == len(parts) - 1:
            return kind.removeprefix("dict[str, ").removesuffix("]"), len(parts)
        section = Section.SECTIONS.get(kind)
        found = next((f for f in fields(section) if f.name == part), None) if section else None  # type: ignore[arg-type]
        if found is None:
            return None, depth
        kind = str(found.type)
    return kind, len(parts)
