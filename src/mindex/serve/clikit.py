"""What every `mindex` command shares: the state object, error handling, JSON output."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from mindex.config import Settings
from mindex.errors import MindexError
from mindex.index import Index

F = TypeVar("F", bound=Callable[..., Any])

out = Console(soft_wrap=True)
err = Console(stderr=True)


@dataclass
class State:
    """What the group callback hands to commands: settings and the database path."""

    settings: Settings
    db: Path

    def open(self, create: bool = False) -> Index:
        """Open the index; read-only commands refuse to create one."""
        return Index(self.db, self.settings.index, create=create, embed=self.settings.embed,
                     search=self.settings.search)


def handle_errors(func: F) -> F:
    """Turn a `MindexError` into a one-line message and its exit code."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MindexError as exc:
            err.print(f"[red]error:[/] {exc}", highlight=False)
            sys.exit(exc.exit_code)

    return wrapper  # type: ignore[return-value]


def emit_json(data: Any) -> None:
    """Write one JSON document to stdout."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")

# The filters and ranking options of a search, shared by `search` and `eval`.
_SEARCH_OPTIONS = (
    click.option("--source", help="Only this source."),
    click.option("--kind", help="Only this kind of source (docs, code)."),
    click.option("--path", "path_glob", metavar="GLOB", help="Only files matching GLOB, e.g. 'guide/**' or '*.md'."),
    click.option("--language", help="Code only: files in this language (python, go, typescript, ...)."),
    click.option("--symbol-kind", help="Code only: chunks holding a definition of this kind (function, method, class, ...)."),
    click.option("--rerank/--no-rerank", default=None,
                 help="Rerank the top results (default: on when search.rerank.provider is set)."),
    click.option("--merge/--no-merge", default=None, help="Merge neighbouring chunks of one file into one result."),
    click.option("--hops", default=0, type=click.IntRange(0, 3), help="Multi-hop: also find chunks close to the top results."),
    click.option("--weights", metavar="LEG=W,...", help="Fusion weights, e.g. 'keyword=0.5,semantic=1'."),
)


def search_options(func: F) -> F:
    """Add --source, --kind, --path, --language, --symbol-kind, --rerank, --merge, --hops and
    --weights to a command."""
    for option in reversed(_SEARCH_OPTIONS):
        func = option(func)
    return func


def parse_weights(text: str) -> dict[str, float]:
    """Read `--weights keyword=0.5,semantic=1`."""
    weights: dict[str, float] = {}
    for part in text.split(","):
        leg, _, value = part.partition("=")
        try:
            weights[leg.strip()] = float(value)
        except ValueError:
            raise click.BadParameter(f"{part!r} is not LEG=NUMBER", param_hint="--weights") from None
        if leg.strip() not in ("keyword", "semantic") or weights[leg.strip()] < 0:
            raise click.BadParameter("legs are keyword and semantic, weights 0 or more", param_hint="--weights")
    return weights
