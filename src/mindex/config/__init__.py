"""Settings, read once at the front door and passed down as plain values.

Precedence, lowest first (as the core issue specifies): the project file
`.mindex/config.toml`, the user file (`~/.config/mindex/config.toml` or `$MINDEX_CONFIG`),
`MINDEX_*` environment variables (nested keys with `__`, e.g. `MINDEX_INDEX__CHUNK_SIZE`),
then command-line flags.

The sections are `sections`, reading them `load`, changing a file `write`; every name is
imported from here. Each section is a dataclass whose fields carry their bounds and a description; `_build`
turns the merged layers (TOML values, environment strings) into sections, checking every
value and naming the key of each problem. Plain dataclasses instead of a validation library
keep every command's start-up short (this module is read before anything else runs).
"""

from mindex.config.sections import (
    AgentSettings,
    ChangelogSettings,
    ContextSettings,
    DB_NAME,
    DEFAULT_HALF_LIVES,
    DEFAULT_MEMORY_TYPES,
    DEFAULT_MODELS,
    EmbedSettings,
    IndexSettings,
    InvalidSettings,
    MemorySettings,
    RerankSettings,
    ResearchSettings,
    STATE_DIR,
    STATE_GITIGNORE,
    SearchSettings,
    SecretStr,
    Section,
    ServeSettings,
    Settings,
    make_state_dir,
    setting,
)
from mindex.config.load import (
    db_target,
    find_project_root,
    load_settings,
    project_config_path,
    resolve_db_path,
    user_config_path,
)
from mindex.config.write import is_secret, settings_view, write_setting

__all__ = [
    "AgentSettings",
    "ChangelogSettings",
    "ContextSettings",
    "DB_NAME",
    "DEFAULT_HALF_LIVES",
    "DEFAULT_MEMORY_TYPES",
    "DEFAULT_MODELS",
    "EmbedSettings",
    "IndexSettings",
    "InvalidSettings",
    "MemorySettings",
    "RerankSettings",
    "ResearchSettings",
    "STATE_DIR",
    "STATE_GITIGNORE",
    "SearchSettings",
    "SecretStr",
    "Section",
    "ServeSettings",
    "Settings",
    "db_target",
    "find_project_root",
    "is_secret",
    "load_settings",
    "make_state_dir",
    "project_config_path",
    "resolve_db_path",
    "setting",
    "settings_view",
    "user_config_path",
    "write_setting",
]
