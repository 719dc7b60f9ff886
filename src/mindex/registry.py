"""Registries of providers (embedders, rerankers): a name → `"module:Class"` for the
built-ins and for the packages that register an entry point in the registry's group.

A provider's module is imported when it is built (`load`), and the installed packages'
entry points are read only for a name that is not built in, or when the names are listed:
a search embedding its query locally does not load the HTTP client of the remote
providers, nor scan every installed package's metadata (together about 80 ms).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint


class Registry(Mapping[str, str]):
    """Provider name → its import path; a built-in wins over an entry point of its name."""

    def __init__(self, group: str, built_in: dict[str, str]) -> None:
        self.group, self.built_in = group, built_in
        self._plugins: dict[str, EntryPoint] | None = None

    def plugins(self) -> dict[str, EntryPoint]:
        """The entry points of the registry's group, read once, without the built-in names."""
        if self._plugins is None:
            from importlib.metadata import entry_points

            self._plugins = {e.name: e for e in entry_points(group=self.group) if e.name not in self.built_in}
        return self._plugins

    def load(self, name: str) -> Any:
        """The class registered under `name`, imported now.

        Raises:
            KeyError: no provider has that name.
        """
        if name in self.built_in:
            module, _, attr = self.built_in[name].partition(":")
            return getattr(import_module(module), attr)
        return self.plugins()[name].load()

    def __getitem__(self, name: str) -> str:
        return self.built_in[name] if name in self.built_in else self.plugins()[name].value

    def __contains__(self, name: object) -> bool:
        return name in self.built_in or name in self.plugins()

    def __iter__(self) -> Iterator[str]:
        return iter([*self.built_in, *self.plugins()])

    def __len__(self) -> int:
        return len(self.built_in) + len(self.plugins())
