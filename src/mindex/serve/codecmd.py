"""Code commands: `mindex grep`, `mindex symbols`, `mindex graph`, `mindex watch`."""

from __future__ import annotations

import os
import sys

import click

from mindex.grep import GrepMatch
from mindex.serve.clikit import State, emit_json, err, handle_errors, json_option

NO_MATCH = 3  # the "not found" exit code


def shown_path(root: str | None, path: str) -> str:
    """A match's file as a person can open it: relative to the working folder when inside it."""
    if root is None:
        return path
    full = os.path.join(root, path)
    rel = os.path.relpath(full)
    return full if rel.startswith("..") else rel


@click.command()
@click.argument("pattern")
@click.option("-i", "--ignore-case", is_flag=True, help="Match case-insensitively.")
@click.option("-S", "--smart-case", is_flag=True, help="Case-insensitive unless the pattern has an upper-case letter.")
@click.option("-F", "--fixed-strings", is_flag=True, help="PATTERN is text, not a regex.")
@click.option("-w", "--word-regexp", is_flag=True, help="Only matches at word boundaries.")
@click.option("-U", "--multiline", is_flag=True, help="Let matches span lines (`.` still stops at a newline unless `(?s)`).")
@click.option("--path", "path_glob", metavar="GLOB", help="Only files matching GLOB, e.g. 'src/**' or '*.py'.")
@click.option("--source", help="Only this source.")
@click.option("--language", help="Only files in this language (python, go, ...).")
@click.option("-A", "--after-context", "after", default=0, type=click.IntRange(0, 100), help="Lines after each match.")
@click.option("-B", "--before-context", "before", default=0, type=click.IntRange(0, 100), help="Lines before each match.")
@click.option("-C", "--context", "around", type=click.IntRange(0, 100), help="Lines before and after each match.")
@click.option("-m", "--max-count", type=click.IntRange(1), help="At most this many matching lines per file.")
@click.option("-n", "--limit", default=200, show_default=True, type=click.IntRange(1, 100_000), help="At most this many matches in all.")
@click.option("-l", "--files-with-matches", "files_only", is_flag=True, help="Print only the paths of files with a match.")
@json_option
@click.pass_obj
@handle_errors
def grep(state: State, pattern: str, ignore_case: bool, smart_case: bool, fixed_strings: bool, word_regexp: bool,
         multiline: bool, path_glob: str | None, source: str | None, language: str | None, after: int, before: int,
         around: int | None, max_count: int | None, limit: int, files_only: bool, as_json: bool) -> None:
    """Regex search over indexed code, with exact line numbers (Python `re` syntax).

    Lines are reported the way ripgrep reports them; a trigram index picks the files that
    can match, so selective patterns stay fast on large trees. Exit code 0 with matches,
    3 with none.

    \b
    Examples:
      mindex grep 'def \\w+_handler\\(' --path 'src/**'
      mindex grep -i 'todo|fixme' --language python -C 2
      mindex grep -F 'retry(' --json | jq '.matches[] | "\\(.path):\\(.line)"'
      mindex grep -U 'try:\\n\\s+import'
    """
    if around is not None:
        before = after = around
    with state.open() as index:
        result = index.grep(pattern, ignore_case=ignore_case, smart_case=smart_case, fixed=fixed_strings,
                            word=word_regexp, multiline=multiline, source=source, path=path_glob,
                            language=language, before=before, after=after, max_count=max_count, limit=limit)
        roots = index.roots()
    if as_json:
        emit_json(result.to_dict())
    elif files_only:
        for name, path in dict.fromkeys((m.source, m.path) for m in result.matches):
            click.echo(shown_path(roots.get(name), path))
    else:
        _print_matches(result.matches, roots, context=before > 0 or after > 0)
    if result.truncated:
        err.print(f"[dim]stopped at {limit} matches; raise --limit or narrow with --path[/]", highlight=False)
    if not result.matches:
        sys.exit(NO_MATCH)


def _print_matches(matches: list[GrepMatch], roots: dict[str, str], context: bool) -> None:
    """ripgrep's no-heading layout: `path:line:text`, context as `path-line-text`, `--` between groups."""
    color = sys.stdout.isatty()

    def style(text: str, fg: str) -> str:
        return click.style(text, fg=fg) if color else text

    last: tuple[str, str, int] | None = None
    for match in matches:
        shown = shown_path(roots.get(match.source), match.path)
        rows = [(n, t, "-") for n, t in match.before]
        rows += [(match.line + k, t, ":") for k, t in enumerate(match.text.split("\n"))]
        rows += [(n, t, "-") for n, t in match.after]
        if context and last is not None and (last[:2] != (match.source, match.path) or rows[0][0] > last[2] + 1):
            click.echo("--")
        for n, text, sep in rows:
            if last is not None and last[:2] == (match.source, match.path) and n <= last[2]:
                continue  # already printed as context of the previous match
            click.echo(f"{style(shown, 'magenta')}{sep}{style(str(n), 'green')}{sep}{text}")
        last = (match.source, match.path, rows[-1][0])
