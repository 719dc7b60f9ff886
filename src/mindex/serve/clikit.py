"""What every `mindex` command shares: the state object, error handling, JSON output."""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

import click

from mindex.errors import MindexError
from mindex.textsafe import markup_escape as escape

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from rich.console import Console

    from mindex.config import Settings
    from mindex.index import Index

F = TypeVar("F", bound=Callable[..., Any])


def lazy_module(name: str) -> Any:
    """A module imported on first attribute access (declare its real type under
    TYPE_CHECKING): a command pays for the modules it uses, not those of every command."""

    class Lazy:
        def __getattr__(self, attr: str) -> Any:
            from importlib import import_module

            return getattr(import_module(name), attr)

    return Lazy()


class _LazyConsole:
    """A console made on first use: commands that print nothing (`--help`, `--json`) never
    import rich. Without a terminal (a pipe, a file, an agent's shell) strings print through
    `_PlainConsole`, the characters rich would print there, without rich's import."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None
        self._plain: _PlainConsole | None = None

    def real(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def forget(self) -> None:
        """Make the console anew at its next use (a background process serving another
        caller's terminal or pipe)."""
        self._console = None
        self._plain = None

    def _stream(self) -> Any:
        return sys.stderr if self._options.get("stderr") else sys.stdout

    def _printer(self) -> Any:
        if self._console is None and plain_output(self._stream()):
            if self._plain is None:
                self._plain = _PlainConsole(self._stream, self.real)
            return self._plain
        return self.real()

    def print(self, *objects: Any, **options: Any) -> None:
        self._printer().print(*objects, **options)

    @property
    def is_terminal(self) -> bool:
        return bool(self._printer().is_terminal)

    # Python looks special methods up on the type, never through `__getattr__`: rich's `Live`
    # does `with console:`, which needs these two spelled out.
    def __enter__(self) -> Console:
        return self.real().__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.real().__exit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)


def plain_output(stream: Any) -> bool:
    """True when rich would print `stream` without colours or cursor codes: not a terminal,
    and no `FORCE_COLOR` or `TTY_COMPATIBLE=1` asking for a terminal's output anyway."""
    if "FORCE_COLOR" in os.environ or os.environ.get("TTY_COMPATIBLE") == "1":
        return False
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream: let rich decide
        return False


# rich's markup grammar (rich.markup.RE_TAGS): backslashes, then `[` a letter, `#`, `/` or
# `@` and anything up to the next `]`.
_MARKUP_TAG = re.compile(r"((\\*)\[([a-z#/@][^[]*?)])")
# The control characters rich's Text drops (bell, backspace, vertical tab, form feed, CR).
_DROPPED_CONTROLS = dict.fromkeys((7, 8, 11, 12, 13))


def strip_markup(markup: str) -> str:
    """The text rich shows for a markup string (rich.markup.render without styles): tags gone,
    an even run of backslashes before a tag halved, an odd run escaping the tag, which then
    prints as text, and `\\[` outside tags printed as `[`."""
    if "[" not in markup:
        return markup
    parts, position = [], 0
    for match in _MARKUP_TAG.finditer(markup):
        full, escapes, _tag = match.groups()
        start, end = match.span()
        parts.append(markup[position:start].replace("\\[", "["))
        position = end
        backslashes, escaped = divmod(len(escapes), 2)
        parts.append("\\" * backslashes)
        if escaped:
            parts.append(full[len(escapes):])
    parts.append(markup[position:].replace("\\[", "["))
    return "".join(parts)


class _PlainConsole:
    """`print` for a stream that is not a terminal, as rich prints strings there with
    `soft_wrap` (no colours, no wrapping, control characters dropped). Anything else (tables,
    tabs to expand by cell width, options it does not know) goes to the rich console."""

    is_terminal = False

    def __init__(self, stream: Callable[[], Any], rich_console: Callable[[], Console]) -> None:
        self._stream, self._rich = stream, rich_console

    def print(self, *objects: Any, sep: str = " ", end: str = "\n", markup: bool | None = None,
              highlight: bool | None = None, soft_wrap: bool | None = None, **options: Any) -> None:
        if options or soft_wrap is False or not all(type(o) is str and "\t" not in o for o in objects):
            self._rich().print(*objects, sep=sep, end=end, markup=markup, highlight=highlight, soft_wrap=soft_wrap,
                               **options)
            return
        text = sep.join(o if markup is False else strip_markup(o) for o in objects)
        self._stream().write(text.translate(_DROPPED_CONTROLS) + end)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rich(), name)


# Indexed text and paths are printed literally: no :emoji: codes, no colours rich would guess
# (its highlighter coloured numbers and paths, and took a full stop after a path into it),
# and every value that is not ours goes through `escape` so `[bold]` in a file stays text.
out = cast("Console", _LazyConsole(soft_wrap=True, emoji=False, highlight=False))
err = cast("Console", _LazyConsole(stderr=True, emoji=False, soft_wrap=True, highlight=False))  # one line: grep-able logs


class State:
    """What the group callback hands to commands: the settings (read on first use, so
    `mindex CMD --help` reads no config) and the database path."""

    # A process that runs many commands (`mindex.serve.background`) keeps their indexes open:
    # `opener(db, settings, create)` gives a context of the index it holds.
    opener: ClassVar[Callable[[Path | str, Settings, bool], AbstractContextManager[Index]] | None] = None

    def __init__(self, db: Path | None) -> None:
        self._db_flag = db
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from mindex.config import load_settings

            self._settings = load_settings(db=self._db_flag)
        return self._settings

    @property
    def db(self) -> Path | str:
        """The index file, or a postgresql:// URL."""
        from mindex.config import resolve_db_path

        return resolve_db_path(self.settings)

    def project_products(self) -> Path:
        """The project's products file for changelogs, beside the index."""
        from mindex.config import STATE_DIR, find_project_root

        db = self.db
        home = db.parent if isinstance(db, Path) else find_project_root(Path.cwd()) / STATE_DIR
        return home / "changelog" / "products.yaml"

    def open(self, create: bool = False) -> AbstractContextManager[Index]:
        """Open the index; read-only commands refuse to create one."""
        if State.opener is not None:
            return State.opener(self.db, self.settings, create)
        from mindex.index import Index

        return Index.with_settings(self.db, self.settings, create=create)


def stop_on_term() -> None:
    """Let `kill` (SIGTERM) stop a long write as Ctrl-C does: what was parsed is written, the
    locks are freed, the cursor comes back, exit 130. (Servers keep the default: stopped by
    the signal, as service managers expect.)"""
    import signal

    def terminated(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminated)


def error_object(code: str, text: str) -> dict[str, Any]:
    """The `--json` shape of a failure: `{"error": {"code", "message", "hint"}}`; the hint is
    the part of our messages after the first `; `, which names the next step."""
    message, _, hint = text.partition("; ")
    return {"error": {"code": code, "message": message, "hint": hint or None}}


def wants_json(kwargs: dict[str, Any] | None = None) -> bool:
    """True when the command line asked for `--json` (also before the subcommand parsed it)."""
    if kwargs and "as_json" in kwargs:
        return bool(kwargs["as_json"])
    ctx = click.get_current_context(silent=True)
    return "--json" in (ctx.args if ctx is not None else sys.argv[1:])


def fail(code: str, text: str, exit_code: int, as_json: bool) -> None:
    """Report a failure: the JSON error object on stdout with `--json`, a line on stderr always."""
    if as_json:
        emit_json(error_object(code, text))
    err.print(f"[red]error[/] [dim]{code}[/]: {escape(text)}", highlight=False)
    sys.exit(exit_code)


def handle_errors(func: F) -> F:
    """Turn a `MindexError` into a one-line message (and a JSON object with `--json`) and its
    exit code."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except MindexError as exc:
            fail(exc.code, str(exc), exc.exit_code, wants_json(kwargs))

    return wrapper  # type: ignore[return-value]


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(data: Any) -> str:
    """JSON text that any UTF-8 reader accepts, with non-ASCII text kept as is. A lone
    surrogate (a file name's undecodable byte, or such a query) is written as its `\\uXXXX`
    escape, which `json.loads` turns back into the same string."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def emit_json(data: Any) -> None:
    """Write one JSON document to stdout."""
    click.echo(dumps(data))


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
    click.option("--group-by", type=click.Choice(["file"]), help="One result per file (its best chunk)."),
)


def search_options(func: F) -> F:
    """Add --source, --kind, --path, --language, --symbol-kind, --rerank, --merge, --hops,
    --weights and --group-by to a command."""
    for option in reversed(_SEARCH_OPTIONS):
        func = option(func)
    return func


def not_blank(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A query argument's check: an empty one (often an unset shell variable) is a usage
    error, as the MCP tools refuse it, not a search that quietly finds nothing."""
    if not value.strip():
        raise click.BadParameter("it is empty; give the words, question or identifier to search for",
                                 ctx=ctx, param=param)
    return value


class _Text(click.types.StringParamType):
    """Text an argument gives (a query, a name, an id): bytes the shell passes that are not
    UTF-8 (`$'ab\\xb2cd'`, which Python holds as lone surrogates) become the visible escapes
    the index stores for them (`ab\\xb2cd`), so a lookup finds what was indexed under such a
    name, or nothing, instead of failing to encode the text for SQLite."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from mindex.textsafe import escape_surrogates

        text = super().convert(value, param, ctx)
        return escape_surrogates(text) if isinstance(text, str) else text


TEXT = _Text()


class FiniteRange(click.FloatRange):
    """click's float range, refusing nan and the infinities (every comparison with nan is
    false, so a plain range lets it through to crash later)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def parse_weights(text: str) -> dict[str, float]:
    """Read `--weights keyword=0.5,semantic=1` (`mindex.ops.search.parse_weights`, said as a
    bad value of the option)."""
    from mindex.ops.search import parse_weights as parse

    try:
        return parse(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--weights") from None