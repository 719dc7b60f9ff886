"""Jupyter notebooks in a code source: read as their cells' text (the percent format), not as
their JSON: a notebook's code was escaped strings with no definitions, its outputs' base64
images were chunks, and a notebook whose output held one long line was skipped whole."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mindex import Index
from mindex.parse.notebook import NotebookError, notebook_text

FIXTURES = Path(__file__).parent / "fixtures" / "notebooks"


def test_a_notebook_is_its_cells_in_the_percent_format_without_outputs() -> None:
    text, language = notebook_text((FIXTURES / "test4.ipynb").read_bytes())
    assert language == "python"  # no kernel metadata: Jupyter's own
    assert text.startswith("# %% [markdown]\n# # nbconvert latex test\n\n# %% [markdown]\n# **Lorem ipsum**")
    assert '# %%\nfrom __future__ import annotations\n\nprint("hello")\n' in text
    assert "# %%\n# %%javascript\nconsole.log(\"hi\");" in text  # a magic is a comment
    assert "iVBOR" not in text and "image/png" not in text  # no output
    old, _ = notebook_text((FIXTURES / "test3.ipynb").read_bytes())  # nbformat 3: worksheets, heading cells
    assert old.startswith("# %% [markdown]\n# # nbconvert latex test\n") and 'print("hello")' in old
    assert notebook_text(json.dumps({"metadata": {"kernelspec": {"language": "R"}}, "cells": [
        {"cell_type": "code", "source": "x <- 1"}]}).encode()) == ("# %%\nx <- 1\n", None)  # R: not parsed
    with pytest.raises(NotebookError, match="not JSON"):
        notebook_text(b'{"cells": [')
    with pytest.raises(NotebookError, match="no list of cells"):
        notebook_text(b'{"nbformat": 4}')
    with pytest.raises(NotebookError, match="nested too deeply"):  # a worker must not raise
        notebook_text(b"[" * 200_000)


def test_a_notebooks_code_is_searched_graphed_and_grepped_and_its_prose_is_embedded(index: Index,
                                                                                   tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy(FIXTURES / "test4.ipynb", root / "report.ipynb")
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Churn\n", "We predict which customers leave.\n"]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": [
                 "%matplotlib inline\n", "def train_churn_model(frame, depth=3):\n", "    return fit(frame, depth)\n"],
              "outputs": [{"output_type": "display_data", "metadata": {},
                           "data": {"image/png": "iVBORw0KGgo" + "A" * 4000}}]}]
    (root / "churn.ipynb").write_text(json.dumps({"cells": cells, "metadata": {
        "kernelspec": {"name": "python3", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}))
    (root / "broken.ipynb").write_text('{"cells": [')
    (root / "util.py").write_text("def fit(frame, depth):\n    return frame\n")
    index.add_source(root, name="repo", kind="code")
    report = index.index()["repo"]
    assert [(s.path, s.reason.split(":")[0]) for s in report.skipped] == [("broken.ipynb", "not a notebook")]
    graph = index.graph()
    (train,) = graph.targets("train_churn_model")
    assert (train.path, train.start_line) == ("churn.ipynb", 7)  # after a comment for the magic
    assert [(e.target.path, e.confidence) for e in graph.callees(train) if e.target] == [("util.py", 0.6)]
    found = index.grep('print("hello")', fixed=True).matches
    assert [(m.path, m.line) for m in found] == [("report.ipynb", 13)]  # the line of the cells' text
    assert not index.grep("iVBOR").matches  # outputs are not read
    # A markdown cell is comments in the text, but not a code chunk of comments alone, which
    # gets no vector: it is embedded.
    hashes = [row[0] for row in index.store.pending_embeddings("any-model")]
    texts = index.store.texts_for(hashes)
    prose = [h for h in hashes if "We predict which customers leave" in texts[h][1]]
    helper = [h for h in hashes if "def fit(frame" in texts[h][1]]
    assert prose and not index.store.code_hashes(prose) and index.store.code_hashes(helper) == set(helper)


def test_the_ui_shows_a_notebooks_chunk_in_its_cells_text(tmp_path: Path) -> None:
    """The web UI reads a result's file to show it in place; a notebook's JSON does not hold
    the chunk's lines, and the UI said the file had changed since it was indexed."""
    from mindex.serve.web.reading import in_its_file

    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy(FIXTURES / "test4.ipynb", root / "report.ipynb")
    hit = {"source": "repo", "path": "report.ipynb", "start_line": 10, "end_line": 13, "language": "python",
           "text": '# %%\nfrom __future__ import annotations\n\nprint("hello")'}
    shown = in_its_file(hit, {"repo": str(root)})
    assert shown["note"] is None and shown["first"] == 1 and "nbconvert latex test" in str(shown["html"])
    (root / "report.ipynb").write_text("{")
    assert "not a notebook" in in_its_file(hit, {"repo": str(root)})["note"]


def test_a_notebook_in_a_docs_folder_is_read_as_its_markdown_and_fenced_code(index: Index, tmp_path: Path) -> None:
    """A docs folder's example notebooks (Sphinx with nbsphinx, MkDocs with mkdocs-jupyter)
    were not read at all by a docs source."""
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(FIXTURES / "test4.ipynb", docs / "example.ipynb")
    (docs / "broken.ipynb").write_text('{"cells": [')
    index.add_source(docs, name="docs", kind="docs")
    report = index.index()["docs"]
    assert [(s.path, s.reason.split(":")[0]) for s in report.skipped] == [("broken.ipynb", "not a notebook")]
    hits = index.search("Printed Using Python", limit=3).hits
    assert hits[0].path == "example.ipynb" and hits[0].context.endswith("› Printed Using Python")
    assert '```python\nfrom __future__ import annotations\n\nprint("hello")\n```' in hits[0].text
    assert not index.search("iVBORw0KGgo", limit=3).hits  # no output
