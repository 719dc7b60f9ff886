"""Changing settings: `mindex config set/unset` write one key of a TOML file, checked as a
loaded value is; the view `mindex config show` prints."""


from __future__ import annotations

import re
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from mindex.errors import ConfigError
from mindex.config.load import kind_of, read_toml
from mindex.config.sections import InvalidSettings, SecretStr, Section, Settings, build_section, make_state_dir


# A word TOML cannot read as a value: a letter first, then letters, digits, `_`, `-` or `.`
# (`inf` and `nan`, TOML floats, and the booleans excepted).
_PLAIN_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def _parse_value(raw: str) -> Any:
    """A TOML literal (`32`, `true`, `1.5`, `["a"]`) if it is one, else the plain string."""
    if _PLAIN_WORD.fullmatch(raw) and raw not in ("true", "false", "inf", "nan"):
        return raw  # a name such as `none` or `all-MiniLM-L6-v2`: no TOML literal, and no TOML parser loaded
    import tomllib

    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def _check_key(key: str) -> tuple[list[str], str]:
    """The key's parts and the type of its value; a key may go one level into a table of
    free keys (`search.half_life_days.docs`).

    Raises:
        ConfigError: no such setting, or the key names a whole section.
    """
    parts = key.split(".")
    kind, known_parts = kind_of(parts)
    if kind is None:
        parent = Section.SECTIONS.get(kind_of(parts[:known_parts])[0] or "")
        listed = ", ".join(sorted(f.name for f in fields(parent))) if parent else "none (it is a value)"  # type: ignore[arg-type]
        where = ".".join(parts[:known_parts]) or "top level"
        raise ConfigError(f"unknown setting {key!r}; keys under {where}: {listed}")
    if kind in Section.SECTIONS:
        first = fields(Section.SECTIONS[kind])[0].name  # type: ignore[arg-type]
        raise ConfigError(f"{key!r} is a section; set one of its keys, e.g. {key}.{first}")
    return parts, kind


def is_secret(key: str) -> bool:
    """True for settings whose value must never be printed (API keys)."""
    try:
        return _check_key(key)[1].startswith("SecretStr")
    except ConfigError:
        return False


def write_setting(file: Path, key: str, raw: str | None) -> Any:
    """Set (or with `raw=None` remove) dotted `key` in a TOML config file; returns the value.

    The file is validated as a whole before it is written, so a bad value never lands.

    Raises:
        ConfigError: unknown key, a value the setting refuses, or an unreadable file.
    """
    import tomli_w

    parts, kind = _check_key(key)
    data = read_toml(file) if file.is_file() else {}
    table = data
    for part in parts[:-1]:
        table = table.setdefault(part, {})
    value = None if raw is None else _parse_value(raw)
    if value is None:
        table.pop(parts[-1], None)
    else:
        if kind.removesuffix(" | None") in ("str", "SecretStr", "Path"):
            value = raw  # text settings take the text as typed: embed.model = 3 is "3"
        table[parts[-1]] = value
    try:
        build_section(Settings, data)
    except InvalidSettings as exc:
        shown = "the value given" if kind.startswith("SecretStr") else repr(raw)
        raise ConfigError(f"{key} = {shown} is not valid ({exc}); see `mindex config show`") from None
    make_state_dir(file.parent)
    file.write_text(tomli_w.dumps(data))
    return value


def settings_view(settings: Settings) -> dict[str, Any]:
    """The effective settings as plain data: paths as text, every key masked."""
    def plain(value: Any) -> Any:
        if isinstance(value, SecretStr):
            return "**********"
        if isinstance(value, Path):
            return str(value)
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        return value

    data: dict[str, Any] = plain(asdict(settings, dict_factory=dict))
    return data
