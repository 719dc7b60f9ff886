"""A chunk shown in its file: the lines around it, numbered and highlighted (Pygments,
which escapes what it prints), read inside the chunk's source folder only."""

from __future__ import annotations

import os
from typing import Any

from markupsafe import Markup

AROUND = 60  # lines shown before and after the chunk
MAX_BYTES = 8 << 20  # a bigger file shows the indexed text alone


def in_its_file(hit: dict[str, Any], roots: dict[str, str]) -> dict[str, Any]:
    """The lines around `hit` in its file as highlighted HTML (`html`), the first line shown
    (`first`), and a `note` when the file could not be read or no longer holds the chunk
    (then the indexed text is shown)."""
    from mindex.sources.confine import read_inside
    from mindex.sources.docs import file_text

    start, end = int(hit.get("start_line") or 1), int(hit.get("end_line") or 1)
    root = roots.get(hit.get("source", ""))
    note, lines = None, None
    if root is None:
        note = "its source is no longer registered; showing the indexed text"
    else:
        try:
            data = read_inside(root, os.path.join(root, hit["path"]), MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                note = "the file is over 8 MB; showing the indexed text"
            elif hit["path"].lower().endswith(".ipynb"):  # indexed as its cells' text, numbered so
                from mindex.parse.notebook import NotebookError, notebook_text

                try:
                    lines = notebook_text(data)[0].split("\n")
                except NotebookError as exc:
                    note = f"{exc}; showing the indexed text"
            else:  # numbered as the index numbers them: a form feed is no line of its own
                lines = file_text(data)[0].split("\n")
        except OSError as exc:
            note = f"the file cannot be read now ({exc.strerror or exc}); showing the indexed text"
    text = hit.get("text", "")
    first_line = next((line.strip() for line in text.split("\n") if line.strip()), "")
    if lines is not None and first_line and not any(
            first_line in line for line in lines[max(0, start - 1): end]):
        note, lines = "the file changed since it was indexed (run `mindex index`); showing the indexed text", None
    if lines is None:
        return {"html": highlight(text, hit, start, start, end), "first": start, "note": note}
    first = max(1, start - AROUND)
    shown = "\n".join(lines[first - 1: end + AROUND])
    return {"html": highlight(shown, hit, first, start, end), "first": first, "note": note}


def highlight(text: str, hit: dict[str, Any], first: int, start: int, end: int) -> Markup:
    """`text` (whose first line is line `first`) as numbered, highlighted HTML with lines
    start..end marked."""
    from pygments import highlight as pygmentize
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import TextLexer, get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(hit["language"]) if hit.get("language") else get_lexer_for_filename(hit["path"])
    except ClassNotFound:
        lexer = TextLexer()
    lexer.stripnl = False
    marked = list(range(start - first + 1, end - first + 2))
    formatter = HtmlFormatter(linenos="table", linenostart=first, hl_lines=marked, cssclass="code",
                              lineanchors="L", anchorlinenos=True, wrapcode=True)
    return Markup(pygmentize(text, lexer, formatter))
