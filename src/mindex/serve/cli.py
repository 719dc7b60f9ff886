"""The `mindex` command. Each command validates input, calls one `Index` method, renders.

Exit codes: 0 success; 1 an error mindex explains (bad config, unreadable source, ...);
2 bad usage; 3 not found (unknown chunk id or source); 4 the index is locked by a writer;
5 an embedding run stopped at its budget (run again to continue).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import click
from mindex.textsafe import markup_escape as escape

from mindex import __version__
from mindex.modes import MODES
from mindex.serve.words import Places
from mindex.serve.clikit import (
    TEXT,
    lazy_module,
    State,
    emit_json,
    err,
    error_object,
    handle_errors,
    json_option,
    not_blank,
    out,
    parse_weights,
    search_options,
    stop_on_term,
)

if TYPE_CHECKING:
    from mindex.serve import render
else:
    render = lazy_module("mindex.serve.render")

# The commands defined in other modules, each imported when it runs: a search does not pay
# for the agent, changelog, memory and setup commands' definitions. `mindex --help` lists
# them from the first sentence of their help recorded here (a test compares it with theirs).
LAZY_COMMANDS = {
    "changelog": ("mindex.serve.changelogcmd:changelog",
                  "Release notes of the tools you depend on, split into classified changes."),
    "completion": ("mindex.serve.setup:completion",
                   "Print the tab-completion script for SHELL: commands, options, choices and files."),
    "config": ("mindex.serve.setup:config",
               "Read and change settings (project file by default, --user for yours)."),
    "context": ("mindex.serve.memorycmd:context",
                "Markdown for an agent's context: learnings, patterns, mistakes and recent memory for the files, "
                "issue and query, grouped by code area, never over the token budget."),
    "doctor": ("mindex.serve.agentcmd:doctor",
               "Check what an agent needs: the index and its schema, the model, each source and how stale it is, "
               "the agents set up here and the command they run, the session-start hook's time."),
    "eval": ("mindex.serve.evalcmd:eval_cmd",
             "Score search against judged queries: Recall@1/5/10, MRR@10, nDCG@10, Success@10, latency."),
    "graph": ("mindex.serve.codecmd:graph",
              "The code graph: callers, callees, impact, exports and outlines of indexed code."),
    "grep": ("mindex.serve.codecmd:grep",
             "Regex search over indexed code, with exact line numbers (Python `re` syntax)."),
    "hook": ("mindex.serve.agentcmd:hook",
             "Session hooks for coding agents (Claude Code's hook protocol; any agent can call them)."),
    "install": ("mindex.serve.agentcmd:install",
                "Set up an agent to use mindex: its MCP server entry and, for Claude Code, the session hooks "
                "(SessionStart, PreCompact, SessionEnd)."),
    "knowledge": ("mindex.serve.memorycmd:knowledge",
                  "Learnings, patterns, mistakes and topics: markdown files in .mindex/knowledge, linked to code "
                  "areas and files in a knowledge graph."),
    "memory": ("mindex.serve.memorycmd:memory",
               "What agents decided, learned and did: a markdown journal in .mindex/memory, indexed."),
    "metrics": ("mindex.serve.agentcmd:metrics",
                "Per-session metrics the hooks recorded (files read, compactions, learnings injected and captured) "
                "and, when agents.query_log is on, the query log by kind."),
    "milestone": ("mindex.serve.agentcmd:milestone",
                  "Groups of issues worked in waves, with a lint and typecheck baseline."),
    "models": ("mindex.serve.setup:models",
               "Local embedding and reranking models: set up, download, list."),
    "symbols": ("mindex.serve.codecmd:symbols",
                "Definitions in indexed code: find them by name."),
    "uninstall": ("mindex.serve.agentcmd:uninstall",
                  "Remove what `mindex install` added for an agent (its server entry and mindex's hook handlers), "
                  "leaving everything else; backs each file up first."),
    "watch": ("mindex.serve.codecmd:watch",
              "Keep the index live while you edit: re-index sources (all, or those named) within about a second "
              "of a save."),
    "workflow": ("mindex.serve.agentcmd:workflow",
                 "Checkpoints of an agent's work on an issue: phase, status, actions, commits."),
}


class LazyGroup(click.Group):
    """A command group whose `LAZY_COMMANDS` are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            from importlib import import_module

            module, _, attr = LAZY_COMMANDS[cmd_name][0].partition(":")
            command = getattr(import_module(module), attr)
            if command.name != cmd_name:
                raise RuntimeError(f"{LAZY_COMMANDS[cmd_name][0]} is named {command.name!r}, not {cmd_name!r}")
            self.add_command(command)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's list of commands, with the recorded help of those not imported yet."""
        rows = []
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        for name in names:
            if name in self.commands or name not in LAZY_COMMANDS:
                command = self.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
            else:  # a stand-in shortens the recorded sentence as click shortens the command's help
                command = click.Command(name, help=LAZY_COMMANDS[name][1])
            rows.append((name, command.get_short_help_str(limit)))
        if rows:
            from gettext import gettext

            with formatter.section(gettext("Commands")):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="mindex")
@click.option("--db", type=click.Path(path_type=Path), help="Index file (default: .mindex/index.db in the project root; env MINDEX_DB).")
@click.option("-v", "--verbose", count=True, help="More log output on stderr (-vv for debug).")
@click.pass_context
@handle_errors
def cli(ctx: click.Context, db: Path | None, verbose: int) -> None:
    """mindex: one local index of your docs and code, searchable from the shell and by agents over MCP.

    \b
    Quick start:
      mindex add ./docs                  register a folder of docs
      mindex add . --kind code           register a repository
      mindex index                       index every source (incremental)
      mindex search "configure retries"  hybrid search (keywords and meaning), best first
      mindex grep 'def \\w+_retry'        regex over indexed code
      mindex serve                       MCP server over stdio for your agent
      mindex memory save "chose X because Y" --type decision   remember it for the next session
      mindex context --files src/app.py  what was learned about those files, for an agent
    """
    import logging  # here: `mindex --help` never runs this callback

    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(message)s", stream=sys.stderr)
    if not verbose:
        # The PostgreSQL driver and its pool log each dead connection they drop and each reconnection
        # tried (15 lines when the server went away mid-index); the error says it once.
        logging.getLogger("psycopg").setLevel(logging.ERROR)
    ctx.obj = State(db)


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--name", help="Name for the source (default: the folder's name).")
@click.option("--kind", default="docs", show_default=True, type=click.Choice(["docs", "code"]),
              help="What the folder holds: docs, or code (a repository: git-aware, parsed with tree-sitter).")
@click.option("--include", multiple=True, metavar="GLOB", help="Only index files matching GLOB (repeatable).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching GLOB (repeatable).")
@json_option
@click.pass_obj
@handle_errors
def add(state: State, path: Path, name: str | None, kind: str, include: tuple[str, ...],
        exclude: tuple[str, ...], as_json: bool) -> None:
    """Register a folder as a source. Run `mindex index` afterwards.

    \b
    Examples:
      mindex add ./docs
      mindex add ~/src/django/docs --name django --exclude 'releases/**'
      mindex add ./site --include '**/*.html'
      mindex add . --kind code --exclude 'tests/fixtures/**'
    """
    with state.open(create=True) as index:
        source = index.add_source(path, name=name, kind=kind, include=include, exclude=exclude)
    if as_json:
        emit_json({"name": source.name, "kind": source.kind, "root": source.root})
    else:
        out.print(f"Added source [bold]{escape(source.name)}[/] → {escape(source.root)}. Next: [bold]mindex index[/]")


@cli.command()
@click.argument("source", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def remove(state: State, source: str, as_json: bool) -> None:
    """Unregister a source (by name or folder) and drop what was indexed from it.

    \b
    Examples:
      mindex remove docs
      mindex remove ./site --json
    """
    with state.open() as index:
        removed = index.remove_source(source)
    if as_json:
        emit_json({"removed": removed.name})
    else:
        out.print(f"Removed source [bold]{escape(removed.name)}[/] and its documents.")


@cli.command()
@json_option
@click.pass_obj
@handle_errors
def sources(state: State, as_json: bool) -> None:
    """List registered sources with document and chunk counts.

    \b
    Examples:
      mindex sources
      mindex sources --json | jq '.sources[] | {name, documents}'
    """
    with state.open() as index:
        listed = index.sources()
    if as_json:
        emit_json({"sources": [s.to_dict() for s in listed]})
    else:
        render.print_sources(out, listed)


@cli.command("index")
@click.argument("names", nargs=-1, type=TEXT, metavar="[SOURCE]...")
@json_option
@click.option("-q", "--quiet", is_flag=True, help="No progress; a one-line summary.")
@click.pass_obj
@handle_errors
def index_cmd(state: State, names: tuple[str, ...], as_json: bool, quiet: bool) -> None:
    """Index all sources (or those named): new and changed files in, deleted files out.

    Unchanged files are skipped by size and mtime, then by content hash, so running it
    again is cheap. New chunks are embedded when a model is available. Progress goes to
    stderr (a bar on a terminal, a line every ten seconds elsewhere); the summary counts
    skipped files by reason, and `mindex status --skipped` lists them.

    \b
    Examples:
      mindex index
      mindex index -q
      mindex index django --json | jq .django.skipped
    """
    from mindex.serve.progress import IndexProgress

    stop_on_term()
    with state.open() as index, IndexProgress(err, enabled=not quiet) as progress:
        reports = index.index(names, progress=progress.update)
    if as_json:
        emit_json({name: report.to_dict() for name, report in reports.items()})
    else:
        render.print_reports(out, reports, quiet)
        render.print_errors(err, reports)
    if any(report.errors for report in reports.values()):
        sys.exit(1)


@cli.command()
@click.argument("query", type=TEXT, callback=not_blank)
@click.option("-n", "--limit", default=10, show_default=True, type=click.IntRange(1, 1000), help="How many results.")
@click.option("--offset", default=0, type=click.IntRange(0), help="Skip this many results (paging).")
@click.option("--mode", type=click.Choice(MODES), help="Search mode (default: hybrid when vectors exist, else keyword).")
@search_options
@click.option("--explain", is_flag=True, help="Show each leg's rank and score, the fused score, rerank and decay.")
@json_option
@click.pass_obj
@handle_errors
def search(state: State, query: str, limit: int, offset: int, mode: str | None, source: str | None,
           kind: str | None, path_glob: str | None, language: str | None, symbol_kind: str | None,
           rerank: bool | None, merge: bool | None, hops: int, weights: str | None, group_by: str | None,
           explain: bool, as_json: bool) -> None:
    """Search the index. Any text but an empty one is a valid query; "quoted words" match as a phrase.

    \b
    Examples:
      mindex search "how do I configure retries" --limit 5
      mindex search "connection pool" --json | jq '.results[].path'
      mindex search 'foo.bar()' --path 'api/**'
      mindex search "how are retries configured" --mode hybrid --explain
      mindex search "pool sizing" --rerank --merge --weights keyword=2,semantic=1
      mindex search "retry with backoff" --kind code --language python --symbol-kind function
      mindex search "session expiry" --group-by file
    """
    leg_weights = parse_weights(weights) if weights else None
    with state.open() as index:
        result = index.search(query, limit, offset, mode, source, kind, path_glob, rerank=rerank, merge=merge,
                              hops=hops, weights=leg_weights, language=language, symbol_kind=symbol_kind,
                              group_by=group_by)
        places = Places(index.roots())
    if result.note:
        err.print(f"[dim]note: {escape(result.note)}[/]", highlight=False)
    if as_json:
        emit_json(result.to_dict())
    else:
        render.print_search(out, result, explain, places)


@cli.command()
@click.argument("question", type=TEXT, callback=not_blank)
@click.option("-n", "--limit", default=10, show_default=True, type=click.IntRange(1, 100), help="How many files.")
@click.option("--mode", type=click.Choice(MODES), help="Search mode (default: hybrid when vectors exist, else keyword).")
@click.option("--source", help="Only this source.")
@click.option("--kind", help="Only this kind of source (docs, code).")
@click.option("--path", "path_glob", metavar="GLOB", help="Only files matching GLOB.")
@click.option("--language", help="Only files in this language.")
@json_option
@click.pass_obj
@handle_errors
def locate(state: State, question: str, limit: int, mode: str | None, source: str | None, kind: str | None,
           path_glob: str | None, language: str | None, as_json: bool) -> None:
    """The files an issue, a bug report or a stack trace is about, best first.

    QUESTION is the text (`-` reads it from stdin). Each file comes with its best chunks
    (lines and the definition they hold) and the definitions in it that the text names.

    \b
    Examples:
      mindex locate "Sessions expire too early when the clock goes back"
      gh issue view 123 --json body -q .body | mindex locate - --kind code
      mindex locate - --json < traceback.txt
    """
    text = sys.stdin.read() if question == "-" else question
    if not text.strip():
        raise click.UsageError("standard input was empty; pipe the issue text, or give it as QUESTION")
    with state.open() as index:
        result = index.locate(text, limit, mode, source, path_glob, language, kind)
        places = Places(index.roots())
    if result.note:
        err.print(f"[dim]note: {escape(result.note)}[/]", highlight=False)
    if as_json:
        emit_json(result.to_dict())
    else:
        render.print_locate(out, result, places)


@cli.command()
@click.option("--force", is_flag=True, help="Drop every vector and embed again (after changing the model).")
@json_option
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@click.pass_obj
@handle_errors
def embed(state: State, force: bool, as_json: bool, quiet: bool) -> None:
    """Embed chunks that have no vector for the configured model (resumable).

    `mindex index` does this too after indexing; run it alone after a model change
    (with --force) or to finish an interrupted run.

    \b
    Examples:
      mindex embed
      mindex embed --force
    """
    from mindex.serve.progress import IndexProgress

    stop_on_term()
    with state.open() as index, IndexProgress(err, enabled=not quiet) as progress:
        count = index.embed(force=force, progress=progress.update)
        embedder = index.embedder()
        model = embedder.identity if embedder else None
    if as_json:
        emit_json({"embedded": count, "model": model})
    else:
        out.print(f"Embedded {render.count(count, 'chunk')} with {escape(str(model))}.")


@cli.command()
@click.argument("chunk_id", type=TEXT)
@json_option
@click.pass_obj
@handle_errors
def get(state: State, chunk_id: str, as_json: bool) -> None:
    """Show one chunk in full, by id (or a unique prefix of 6+ characters).

    \b
    Examples:
      mindex get 3f9a1c2b
      mindex get 3f9a1c2b4e5d6a7b --json | jq -r .text
    """
    with state.open() as index:
        hit = index.get(chunk_id)
        places = Places(index.roots())
    if as_json:
        data = hit.to_dict()
        data.pop("score")
        data.pop("snippet")
        emit_json(data)
    else:
        render.print_chunk(out, hit, places)


@cli.command("copy")
@click.option("--from", "source", required=True, metavar="DB", help="The index to read: a file or a postgresql:// URL.")
@click.option("--to", "target", required=True, metavar="DB", help="Where to write it: a file or a postgresql:// URL.")
@click.option("--replace", is_flag=True, help="Overwrite a target that already holds an index.")
@click.option("--batch", default=5000, show_default=True, help="Rows per transaction on the target.")
@json_option
@click.option("-q", "--quiet", is_flag=True, help="No progress.")
@handle_errors
def copy_cmd(source: str, target: str, replace: bool, batch: int, as_json: bool, quiet: bool) -> None:
    """Copy a whole index to another backend (SQLite to PostgreSQL and back), vectors included.

    Table by table in batches, each one transaction on the target; if the copy stops, run
    the same command again and it goes on where it was. Ids, vectors and the pinned embedding
    model come along, so the copy searches at once. A target that already holds an index is
    refused unless --replace.

    \b
    Examples:
      mindex copy --from .mindex/index.db --to postgresql://me@db.internal/mindex
      mindex copy --from postgresql://me@db.internal/mindex --to backup.db --replace
    """
    from mindex.copy import copy_index
    from mindex.serve.progress import IndexProgress

    from mindex.errors import ConfigError

    if batch < 1:
        raise ConfigError("--batch must be 1 or more")
    stop_on_term()
    with IndexProgress(err, enabled=not quiet, unit="rows") as progress:
        report = copy_index(source, target, replace=replace, batch=batch, progress=progress.update)
    if as_json:
        emit_json(report.to_dict())
    else:
        moved = ", ".join(f"{n:,} {t}" for t, n in report.rows.items() if n)
        out.print(f"{'Resumed and copied' if report.resumed else 'Copied'} {moved or 'nothing'} "
                  f"in {report.seconds:.1f} s", highlight=False)


@cli.command()
@click.option("--skipped", "list_skipped", is_flag=True, help="List every file the last runs skipped, with the reason.")
@json_option
@click.pass_obj
@handle_errors
def status(state: State, list_skipped: bool, as_json: bool) -> None:
    """Show where the index is, its size and counts, and the files skipped last time.

    \b
    Examples:
      mindex status
      mindex status --skipped
      mindex status --json | jq '.skipped | length'
    """
    with state.open() as index:
        info = index.status()
    if as_json:
        emit_json(info)
    else:
        render.print_status(out, info, list_skipped)


@cli.command()
@json_option
@click.pass_obj
@handle_errors
def compact(state: State, as_json: bool) -> None:
    """Give back the room edits leave behind in the index file.

    Re-indexing changed files leaves free pages and many small full-text segments, which
    SQLite reuses but never returns: an index edited for months is larger than a fresh
    one. This merges the full-text indexes and rewrites the file without free pages (it
    needs room for two more copies of it while it runs, and the write lock). On PostgreSQL
    it runs VACUUM (ANALYZE). Searching is the same before and after.

    \b
    Examples:
      mindex compact
      mindex compact --json | jq '.before_bytes - .after_bytes'
    """
    with state.open() as index:
        report = index.compact()
    if as_json:
        emit_json(report)
    else:
        before, after = report["before_bytes"], report["after_bytes"]
        out.print(f"{report['db']}: {before / 1e6:,.1f} MB → {after / 1e6:,.1f} MB "
                  f"({(before - after) / 1e6:,.1f} MB given back) in {report['seconds']:.1f} s", highlight=False)
        if report.get("note"):
            err.print(f"note: {report['note']}", highlight=False)


@cli.command()
@click.option("--http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", help="HTTP address (default 127.0.0.1; any other needs a token).")
@click.option("--port", type=click.IntRange(1, 65535), help="HTTP port (default 8765).")
@click.option("--token", envvar="MINDEX_TOKEN", help="Bearer token HTTP clients must send (env MINDEX_TOKEN).")
@click.option("--tokens", type=click.Path(path_type=Path, dir_okay=False),
              help="A file of named tokens (rights per client, an access log on stderr, /healthz); see new-token.")
@click.option("--watch", "live", is_flag=True, help="Also keep the index live while files change (as `mindex watch`).")
@click.option("--json", "as_json", is_flag=True,
              help="A start-up error as one JSON object on stdout (with --http; over stdio, stdout is MCP's).")
@click.pass_obj
@handle_errors
def serve(state: State, http: bool, host: str | None, port: int | None, token: str | None, tokens: Path | None,
          live: bool, as_json: bool) -> None:
    """Run the MCP server (stdio by default) for Claude Code, Cursor, Codex CLI and others.

    \b
    Examples:
      mindex serve
      mindex serve --http --port 8765
      MINDEX_TOKEN=s3cret mindex serve --http --host 0.0.0.0
      mindex --db postgresql://mindex@db/mindex serve --http --host 0.0.0.0 --tokens tokens.toml
      mindex serve --watch
    """
    from mindex.serve.mcp_warm import run_stdio

    conf = state.settings.serve
    stop = _start_watcher(state) if live else None
    try:
        if http:
            from mindex.serve.mcp_server import run_http

            run_http(state.db, state.settings, host or conf.host, port or conf.port, token or conf.token, tokens)
        else:
            run_stdio(state.db, state.settings)
    finally:
        if stop is not None:
            stop.set()


@cli.command("new-token")
@click.argument("name", type=TEXT)
@click.option("--write", is_flag=True, help="Also allow the tools that write (memory, knowledge, workflows).")
@click.option("--source", "sources", multiple=True, metavar="NAME", help="Only this source (repeat for several).")
@json_option
@handle_errors
def new_token_cmd(name: str, write: bool, sources: tuple[str, ...], as_json: bool) -> None:
    """Make a secret for one client of `serve --http --tokens FILE`.

    Prints the secret once (give it to the client as its bearer token) and the [[token]]
    block to add to the tokens file, which holds only the secret's SHA-256.

    \b
    Examples:
      mindex new-token ci-bot --source api >> tokens.toml    # the secret goes to stderr
      mindex new-token alice --write
    """
    from mindex.serve.tokens import new_token

    secret, block = new_token(name, write, sources)
    if as_json:
        emit_json({"name": name, "secret": secret, "toml": block})
        return
    err.print(f"secret for {escape(name)} (shown once): {secret}", highlight=False, soft_wrap=True)
    out.print(block, end="", highlight=False, markup=False)


def _start_watcher(state: State) -> threading.Event:
    """Run the watcher beside the server, on its own connection; its reports go to the log
    (stderr), never to stdout, which belongs to the MCP protocol in stdio mode."""
    from mindex.watch import Update, watch

    stop = threading.Event()
    import logging

    log = logging.getLogger("mindex")

    def report(update: Update) -> None:
        if update.error:
            log.warning("watch: update failed: %s (will retry)", update.error)
        elif update.touched:
            log.info("watch: index updated in %.2f s (%s)", update.seconds, update.reason)

    def run() -> None:
        try:
            with state.open(create=True) as index:
                watch(index, (), report, stop)
        except Exception:
            log.exception("watch: stopped")

    threading.Thread(target=run, name="mindex-watch", daemon=True).start()
    return stop



def main() -> None:
    """Console-script entry point. Usage errors keep click's message and exit code 2, and
    with `--json` also print the JSON error object."""
    for stream in (sys.stdout, sys.stderr):  # a character the terminal cannot show is escaped, not fatal
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")

    try:
        cli.main(prog_name="mindex", standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.ClickException as exc:
        if "--json" in sys.argv[1:]:
            emit_json(error_object("USAGE", exc.format_message()))
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        err.print("Aborted.")
        sys.exit(130)
