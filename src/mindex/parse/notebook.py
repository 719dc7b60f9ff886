"""A Jupyter notebook (`.ipynb`) as the text of its cells, in the percent format Jupytext and
editors read (`# %%` before a code cell, `# %% [markdown]` before a markdown cell whose lines
become comments), without outputs. A notebook was indexed as its JSON: code as escaped
strings, no definitions, and chunks of base64 images; or skipped whole as machine-written for
an output's long line. Its line numbers are this text's (what `mindex get` and `grep` show).
"""

from __future__ import annotations

import json
from typing import Any

from mindex.models import ParsedDocument
from mindex.parse import UnreadableInput

# The languages a kernel may name that mindex parses, with their comment prefix (a markdown
# cell's lines, and a magic's).
KERNELS = {"python": "#", "julia": "#", "ruby": "#", "bash": "#", "scala": "//", "javascript": "//",
           "typescript": "//", "go": "//", "rust": "//", "c++": "//", "cpp": "//", "java": "//", "kotlin": "//"}
_NAMES = {"c++": "cpp"}


class NotebookError(UnreadableInput):
    """The bytes are not a notebook mindex can read (the message says why)."""


def parse_notebook(text: str, path: str) -> ParsedDocument:
    """A notebook in a docs source (`docs/examples/*.ipynb`): its markdown cells as written, its
    code cells fenced in the kernel's language, read as markdown is (sections at headings).

    Raises:
        NotebookError: not a notebook (see `notebook_text`).
    """
    from mindex.parse.markdown import parse_markdown
    from mindex.textsafe import fence

    cells, language = _cells(text.encode("utf-8", "surrogatepass"))
    parts = [fence(source, language) if kind == "code" else source for kind, source in cells if source.strip()]
    return parse_markdown("\n\n".join(parts) + "\n", path)


def notebook_text(data: bytes) -> tuple[str, str | None]:
    """The notebook's cells as text, and the language its kernel names (a name of
    `mindex.languages`, or None when mindex does not parse it).

    Raises:
        NotebookError: not JSON, or not a notebook's shape (no list of cells).
    """
    cells, language = _cells(data)
    comment = KERNELS.get(language, "#")
    parts = []
    for kind, source in cells:
        if kind == "code":
            lines = [f"{comment} {line}" if line.lstrip().startswith(("%", "!")) else line  # magics, shell
                     for line in source.split("\n")]
            parts.append(f"{comment} %%\n" + "\n".join(lines))
        else:
            lines = [f"{comment} {line}".rstrip() for line in source.split("\n")]
            parts.append(f"{comment} %% [{kind}]\n" + "\n".join(lines))
    name = _NAMES.get(language, language)
    return "\n\n".join(parts) + "\n" if parts else "", name if language in KERNELS else None


def _cells(data: bytes) -> tuple[list[tuple[str, str]], str]:
    """(kind, source) of each cell (code, markdown or raw; an nbformat 3 heading as a markdown
    heading of its level), and the kernel's language.

    Raises:
        NotebookError: not JSON, or not a notebook's shape (no list of cells).
    """
    try:
        notebook = json.loads(data)
    except ValueError as exc:
        raise NotebookError(f"not a notebook: not JSON ({exc})") from None
    except RecursionError:
        raise NotebookError("not a notebook: JSON nested too deeply to read") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):  # nbformat 3 kept them in `worksheets`
        sheets = notebook.get("worksheets") if isinstance(notebook, dict) else None
        cells = [c for s in sheets if isinstance(s, dict) for c in s.get("cells") or []] if isinstance(sheets, list) else None
    if not isinstance(cells, list):
        raise NotebookError("not a notebook: no list of cells")
    out = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = _source(cell.get("source", cell.get("input")))
        if kind == "heading":  # nbformat 3: a heading of its own cell, with its level
            level = cell.get("level")
            kind, source = "markdown", "#" * (level if isinstance(level, int) and 1 <= level <= 6 else 1) + " " + source
        if kind in ("code", "markdown", "raw"):
            out.append((str(kind), source))
    return out, _language(notebook.get("metadata"))


def _source(value: Any) -> str:
    """A cell's source: a string, or a list of lines (each with its own line end)."""
    if isinstance(value, list):
        value = "".join(v for v in value if isinstance(v, str))
    return value.replace("\r\n", "\n").rstrip("\n") if isinstance(value, str) else ""


def _language(metadata: Any) -> str:
    """The kernel's language, lower case: `language_info.name`, else `kernelspec.language`,
    else Python (Jupyter's own kernel, which a notebook saved without metadata ran)."""
    for key, field in (("language_info", "name"), ("kernelspec", "language")):
        value = metadata.get(key) if isinstance(metadata, dict) else None
        if isinstance(value, dict) and isinstance(value.get(field), str):
            return str(value[field]).strip().lower()
    return "python"
