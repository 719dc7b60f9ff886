"""The products registry: the shipped `products.yaml` with the project's
`.mindex/changelog/products.yaml` merged over it (an entry with a shipped name replaces the
fields it gives). Every entry is checked; a problem names its file and line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mindex.errors import ConfigError

SHIPPED = Path(__file__).with_name("products.yaml")
STRATEGIES = ("gh-releases", "rss", "atom", "raw-changelog", "keep-a-changelog", "html-scrape", "playwright", "catalog")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")
KNOWN_KEYS = {"title", "strategy", "source", "tag_prefix", "prereleases", "format", "selectors", "registry",
              "wait_for", "max_pages"}


@dataclass(frozen=True)
class Product:
    """One product: how to fetch its release notes."""

    name: str
    strategy: str
    source: str
    title: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    origin: str = ""  # file:line it was defined at

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title or self.name, "strategy": self.strategy, "source": self.source,
                **({"options": self.options} if self.options else {}), "defined_at": self.origin}


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise ConfigError(f"product name {name!r}: use letters, digits, '.', '_' and '-' (it names a folder)")
    return name


def _entries(path: Path) -> list[tuple[str, dict[str, Any], int]]:
    """(name, fields, line) of each entry under `products:`, with YAML's own line numbers."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}; check that it is a readable file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte {exc.start}); save it as UTF-8 and retry") from None
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ConfigError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if root is None:
        return []
    if not isinstance(root, yaml.MappingNode):
        raise ConfigError(f"{path}:{root.start_mark.line + 1}: expected `products:` and a mapping of products")
    products = next((v for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == "products"), None)
    if products is None:
        raise ConfigError(f"{path}:1: no `products:` key; write products: then one entry per product")
    if not isinstance(products, yaml.MappingNode):
        raise ConfigError(f"{path}:{products.start_mark.line + 1}: `products` must map names to entries")
    out = []
    for key_node, value_node in products.value:
        line = key_node.start_mark.line + 1
        value = yaml.safe_load(yaml.serialize(value_node)) if value_node is not None else None
        if not isinstance(value, dict):
            raise ConfigError(f"{path}:{line}: product {key_node.value!r} must be a mapping (strategy, source, ...)")
        out.append((str(key_node.value), value, line))
    return out


def _validate(name: str, fields: dict[str, Any], where: str) -> Product:
    if not _NAME.match(name):
        raise ConfigError(f"{where}: product name {name!r}: use letters, digits, '.', '_' and '-'")
    unknown = sorted(set(fields) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{where}: product {name}: unknown key {unknown[0]!r}; known: {', '.join(sorted(KNOWN_KEYS))}")
    strategy = fields.get("strategy")
    if strategy not in STRATEGIES:
        raise ConfigError(f"{where}: product {name}: unknown strategy {strategy!r}; use one of: {', '.join(STRATEGIES)}")
    source = fields.get("source")
    if not isinstance(source, str) or not source.strip():
        raise ConfigError(f"{where}: product {name}: missing source (owner/repo for gh-releases, else a URL)")
    if strategy == "gh-releases" and not _REPO.match(source):
        raise ConfigError(f"{where}: product {name}: gh-releases needs source owner/repo, not {source!r}")
    if strategy != "gh-releases" and not re.match(r"^https?://", source):
        raise ConfigError(f"{where}: product {name}: {strategy} needs an http(s) URL as source, not {source!r}")
    if strategy in ("html-scrape", "playwright"):
        selectors = fields.get("selectors")
        if not isinstance(selectors, dict) or not selectors.get("release"):
            raise ConfigError(f"{where}: product {name}: {strategy} needs selectors with at least `release`")
    if strategy == "catalog" and fields.get("registry", "official") not in ("official", "smithery"):
        raise ConfigError(f"{where}: product {name}: catalog registry must be official or smithery")
    if fields.get("format", "markdown") not in ("markdown", "rst", "asciidoc", "rdoc", "org", "debian", "auto"):
        raise ConfigError(f"{where}: product {name}: format must be markdown, rst, asciidoc, rdoc, org, debian or auto")
    options = {k: v for k, v in fields.items() if k not in ("title", "strategy", "source")}
    return Product(name, str(strategy), source.strip(), str(fields.get("title") or ""), options, where)


def load_registry(project_file: Path | None = None) -> dict[str, Product]:
    """Shipped products, then the project's file over them.

    Raises:
        ConfigError: a file that is not valid YAML or an entry that is wrong, with file:line.
    """
    merged: dict[str, tuple[dict[str, Any], str]] = {}
    for path in (SHIPPED, project_file):
        if path is None or not path.exists():
            continue
        for name, fields, line in _entries(path):
            base = merged.get(name, ({}, ""))[0]
            merged[name] = ({**base, **fields}, f"{path}:{line}")
    return {name: _validate(name, fields, where) for name, (fields, where) in merged.items()}


def add_product(path: Path, name: str, strategy: str, source: str, title: str | None = None) -> Product:
    """Add or replace one entry of the project's products file (the rest of it is kept)."""
    check_name(name)
    fields: dict[str, Any] = {"strategy": strategy, "source": source, **({"title": title} if title else {})}
    product = _validate(name, fields, f"{path}")
    data: dict[str, Any] = {"products": {}}
    if path.exists():
        load_registry(path)  # a file that cannot be read or is wrong: the error names the line
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(loaded, dict) or not isinstance(loaded.get("products", {}), dict):
            raise ConfigError(f"{path}: expected `products:` mapping; fix the file first")
        data = {**loaded, "products": dict(loaded.get("products") or {})}
    data["products"][name] = fields
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    tmp.replace(path)
    load_registry(path)  # the whole file still valid
    return product
