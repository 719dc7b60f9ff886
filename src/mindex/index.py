"""The `Index`: the one object the CLI, the MCP server and Python users talk to.

It is the engine (`mindex.engine.Engine`: sources, indexing, search, grep, the code graph)
with the products built on it attached: agent memory and knowledge, and changelogs. They
take the engine and the engine never imports them, so the layers point one way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindex.engine import Engine

if TYPE_CHECKING:
    from pathlib import Path

    from mindex.changelog.book import Changelogs
    from mindex.config import Settings
    from mindex.memory.book import Memory

__all__ = ["Engine", "Index"]


class Index(Engine):
    """A mindex index on disk with its memory and changelogs (see `Engine` for the rest).

    Raises:
        ConfigError: a config file or variable holds an invalid value.
    """

    _memory: Memory | None = None  # made on first use
    _changelog: Changelogs | None = None

    @classmethod
    def with_settings(cls, db: Path | str, settings: Settings, create: bool = False) -> Index:
        """The index at `db` with every section of `settings` a server uses (MCP, the UI)."""
        return cls(db, settings.index, create=create, embed=settings.embed, search=settings.search,
                   memory=settings.memory, agents=settings.agents)

    @property
    def memory(self) -> Memory:
        """Agent memory and knowledge kept beside this index (see `mindex.memory.book`)."""
        if self._memory is None:
            from mindex.memory.book import Memory

            self._memory = Memory(self)
        return self._memory

    @property
    def changelog(self) -> Changelogs:
        """Release notes of the products the project depends on (see `mindex.changelog.book`)."""
        if self._changelog is None:
            from mindex.changelog.book import Changelogs

            self._changelog = Changelogs(self)
        return self._changelog
