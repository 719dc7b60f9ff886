"""AsciiDoc pages (`.adoc`): a docs folder of them was indexed as nothing, without a word said."""

from __future__ import annotations

import shutil
from pathlib import Path

from mindex import Index
from mindex.parse import PARSERS
from mindex.serve.render import fence_tag

FIXTURES = Path(__file__).parent / "fixtures" / "asciidoc"


def test_sections_come_at_titles_and_never_inside_a_delimited_block() -> None:
    """Asciidoctor's page on source maps shows AsciiDoc inside `----` and `....` blocks; their
    `= Document Title` and `== Section` lines are examples, not the page's headings."""
    parsed = PARSERS[".adoc"]((FIXTURES / "sourcemap.adoc").read_text(encoding="utf-8"), "sourcemap.adoc")
    assert parsed.title == "Map Source Location of Blocks"
    assert [s.heading_path for s in parsed.sections] == [
        ("Map Source Location of Blocks",),
        ("Map Source Location of Blocks", "What does the sourcemap provide?"),
        ("Map Source Location of Blocks", "Enable using :sourcemap option"),
        ("Map Source Location of Blocks", "Enable from extension"),
        ("Map Source Location of Blocks", "Use the sourcemap")]
    lines = (FIXTURES / "sourcemap.adoc").read_text(encoding="utf-8").split("\n")
    for section in parsed.sections:  # each section starts at its own title's line
        assert lines[section.start_line - 1].lstrip("= ") == section.heading_path[-1]
    readme = PARSERS[".asciidoc"]((FIXTURES / "README.adoc").read_text(encoding="utf-8"), "README.adoc")
    assert readme.title == "Asciidoctor" and readme.metadata["source-language"] == "ruby"
    assert "url-repo" in readme.metadata and len(readme.sections) > 10


def test_a_folder_of_asciidoc_is_indexed_found_and_fenced_as_asciidoc(index: Index, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for page in FIXTURES.glob("*.adoc"):
        shutil.copy(page, docs / page.name)
    index.add_source(docs, name="docs", kind="docs")
    report = index.index()["docs"]
    assert report.added == 2 and not report.skipped
    hits = index.search("enable the sourcemap from an extension", limit=3).hits
    assert hits[0].path == "sourcemap.adoc" and hits[0].context.endswith("› Enable from extension")
    assert fence_tag(hits[0]) == "asciidoc"
    repo = tmp_path / "repo"  # a repository's own .adoc pages are read as docs too
    repo.mkdir()
    shutil.copy(FIXTURES / "README.adoc", repo / "README.adoc")
    (repo / "tool.py").write_text("def convert(text):\n    return text\n")
    index.add_source(repo, name="repo", kind="code")
    index.index(["repo"])
    readme = [h for h in index.search("Asciidoctor installation", limit=10, kind="docs").hits if h.source == "repo"]
    assert readme and readme[0].language == "asciidoc" and readme[0].prose


def test_a_title_line_of_any_length_is_read_in_linear_time() -> None:
    """A title line of 40,000 spaces before its last word took 7 s (the closing `=` run was
    matched by backtracking); this one, ten times longer, would take some ten minutes so."""
    parsed = PARSERS[".adoc"]("= a" + " " * 400_000 + "b\n\n== Section ==\ntext\n", "long.adoc")
    assert parsed.title.startswith("a") and parsed.title.endswith("b")
    assert parsed.sections[-1].heading_path[-1] == "Section"  # `== Section ==`: the closing marks go


def test_a_page_and_a_changelog_know_the_same_delimited_blocks() -> None:
    """The page reader knew the open block (`--`) and not `~~~~`, the changelog reader the
    reverse: a title inside either was a heading in one and a release in the other."""
    from mindex.changelog.parse import split_releases

    page = PARSERS[".adoc"]("= Guide\n\n== Real\n\n~~~~\n== Not a heading\n~~~~\n\n--\n== Nor this\n--\n", "g.adoc")
    assert [s.heading_path for s in page.sections] == [("Guide",), ("Guide", "Real")]
    changelog = "= Changelog\n\n== 2.0.0 (2025-01-02)\n\n* Added a.\n\n--\n== 9.9.9\n--\n\n~~~~\n== 8.8.8\n~~~~\n\n== 1.0.0\n\n* First.\n"
    assert [r.version for r in split_releases(changelog)] == ["2.0.0", "1.0.0"]
