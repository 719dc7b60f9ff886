"""Org, RDoc, POD and Texinfo pages: a folder of them was indexed as nothing, without a word
said (`0 documents`). Fixtures in tests/fixtures/markup (ORIGIN.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from mindex import Index
from mindex.parse import PARSERS
from mindex.serve.render import fence_tag

FIXTURES = Path(__file__).parent / "fixtures" / "markup"


def _parse(name: str, text: str | None = None):  # type: ignore[no-untyped-def]
    return PARSERS[Path(name).suffix](text if text is not None else (FIXTURES / name).read_text(encoding="utf-8"), name)


def _starts_at_heading(name: str, marker: str) -> None:
    lines = (FIXTURES / name).read_text(encoding="utf-8").split("\n")
    for section in _parse(name).sections:
        if section.heading_path:
            assert lines[section.start_line - 1].startswith(marker), (section.start_line, lines[section.start_line - 1])


def test_org_sections_at_headings_without_todo_keywords_or_tags() -> None:
    """Doom Emacs's contributing guide: `* TODO Reporting issues`, `* Table of Contents :TOC_3:`."""
    parsed = _parse("contributing.org")
    assert parsed.title == "Contributing" and parsed.metadata["startup"] == "nofold"
    paths = [s.heading_path for s in parsed.sections]
    assert ("Table of Contents",) in paths and ("Reporting issues",) in paths
    assert ("Contributing code", "Conventions", "Code style") in paths
    assert not any("TODO" in name or name.endswith(":") for path in paths for name in path)
    _starts_at_heading("contributing.org", "*")
    text = ("#+title: Notes\n#+TODO: NEXT WAIT | DONE\n* NEXT [#A] Ship [[https://x.org/r][the release]] :work:\n"
            "#+BEGIN_SRC org\n* not a heading\n#+END_SRC\nbody\n** WAIT Review\n")
    parsed = _parse("notes.org", text)
    assert parsed.title == "Notes"
    headed = [s for s in parsed.sections if s.heading_path]
    assert [s.heading_path for s in headed] == [("Ship the release",), ("Ship the release", "Review")]
    assert "* not a heading" in headed[0].text  # kept as written, inside its section


def test_rdoc_sections_at_equals_headings() -> None:
    """minitest's README.rdoc."""
    parsed = _parse("README.rdoc")
    assert parsed.title == "minitest/{test,spec,benchmark}"
    paths = [s.heading_path for s in parsed.sections]
    assert ("minitest/{test,spec,benchmark}", "FAQ", "How to test SimpleDelegates?") in paths
    assert ("minitest/{test,spec,benchmark}", "SYNOPSIS:", "Rake Tasks") in paths
    _starts_at_heading("README.rdoc", "=")
    linked = _parse("x.rdoc", "= Guide\n== See {the docs}[https://docs.example] and +Foo#bar+\ntext\n")
    assert linked.sections[-1].heading_path == ("Guide", "See the docs and Foo#bar")


def test_pod_sections_at_head_commands_titled_by_name() -> None:
    """Mojolicious's FAQ (`=head1 NAME` then `Mojolicious::Guides::FAQ - Frequently Asked Questions`)."""
    parsed = _parse("FAQ.pod")
    assert parsed.title == "Mojolicious::Guides::FAQ - Frequently Asked Questions"
    paths = [s.heading_path for s in parsed.sections]
    assert ("QUESTIONS", "Why doesn't Mojolicious have any dependencies?") in paths
    _starts_at_heading("FAQ.pod", "=head")
    coded = _parse("x.pod", "=head1 Using C<< $c->render >> with L<the guide|Mojolicious::Guides> E<gt> B<I<x>>\n\ntext\n")
    assert coded.sections[0].heading_path == ("Using $c->render with the guide > x",)


def test_texinfo_sections_from_their_node_lines() -> None:
    """Magit-Section's manual: `@node Introduction` then `@chapter Introduction`."""
    parsed = _parse("magit-section.texi")
    assert parsed.title == "Magit-Section Developer Manual"
    manual = "Magit-Section Developer Manual"
    assert [s.heading_path for s in parsed.sections if 0 < len(s.heading_path) < 3] == [
        (manual,), (manual, "Introduction"), (manual, "Creating Sections"), (manual, "Core Functions"),
        (manual, "Matching Functions")]
    # each definition (`@defmac magit-insert-section [name] ...`) a section below its chapter
    defined = [s for s in parsed.sections if len(s.heading_path) == 3]
    assert (manual, "Creating Sections", "magit-insert-section") == defined[0].heading_path and len(defined) == 14  # its 11 @defun and 3 @defmac
    lines = (FIXTURES / "magit-section.texi").read_text(encoding="utf-8").split("\n")
    assert all(lines[s.start_line - 1].startswith(("@node", "@def")) for s in parsed.sections if s.heading_path)
    text = ("@settitle T\n@node Top\n@top T\n@node Use\n@chapter Using @code{git-foo}@dots{}\ntext\n@ignore\n"
            "@section hidden\n@end ignore\n@section Options @@ work\n")
    paths = [s.heading_path for s in _parse("t.texi", text).sections if s.heading_path]
    assert paths == [("T",), ("T", "Using git-foo..."), ("T", "Using git-foo...", "Options @ work")]
    text = ("@chapter Commands\n@deffn {Interactive Command} magit-status &optional dir\nShows.\n@end deffn\n"
            "@deftypefn Function int foo (int x)\nfoo\n@end deftypefn\n")
    assert [s.heading_path for s in _parse("d.texi", text).sections] == [
        ("Commands",), ("Commands", "magit-status"), ("Commands", "foo")]


def test_a_folder_of_them_is_indexed_found_and_fenced_in_its_markup(index: Index, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(FIXTURES, docs, ignore=shutil.ignore_patterns("*.md"))
    index.add_source(docs, name="docs", kind="docs")
    report = index.index()["docs"]
    assert report.added == 4 and not report.skipped
    for query, path, heading in (
            ("how to share code across test classes", "README.rdoc", "How to share code across test classes?"),
            ("why does Mojolicious have no dependencies", "FAQ.pod", "Why doesn't Mojolicious have any dependencies?"),
            ("acquire a backtrace from errors", "contributing.org", "Acquire a backtrace from errors"),
            ("matching functions for sections", "magit-section.texi", "Matching Functions")):
        hit = index.search(query, limit=1).hits[0]
        assert (hit.path, hit.context.split(" › ")[-1]) == (path, heading), query
        assert fence_tag(hit) == {".rdoc": "rdoc", ".pod": "pod", ".org": "org", ".texi": "texinfo"}[Path(path).suffix]
    repo = tmp_path / "repo"  # a repository's own pages are read as docs too
    repo.mkdir()
    shutil.copy(FIXTURES / "README.rdoc", repo / "README.rdoc")
    (repo / "lib.rb").write_text("def assert_equal(a, b)\n  a == b\nend\n")
    index.add_source(repo, name="repo", kind="code")
    index.index(["repo"])
    found = [h for h in index.search("How to share code across test classes", limit=10, kind="docs").hits
             if h.source == "repo"]
    assert found and found[0].language == "rdoc" and found[0].prose


def test_a_hostile_line_is_read_in_linear_time() -> None:
    """A heading holding a long run of spaces, unclosed links or unclosed codes took quadratic
    time (40,000 characters: 4 s for an Org heading, 43 s for POD's `C<< `); these lines, five
    times longer, would take minutes to hours so."""
    n = 200_000
    org = _parse("h.org", "* a" + " " * n + ":\n* " + "[[" * n + "\n* Real :tag:\n")
    assert org.sections[-1].heading_path == ("Real",) and org.sections[0].heading_path == ("a" + " " * n + ":",)
    rdoc = _parse("h.rdoc", "= x" + " " * n + "y[\n== a" + "+" * n + "\n= " + "{" * n + "[http://x]\n")
    assert [len(s.heading_path) for s in rdoc.sections] == [1, 2, 1]
    pod = _parse("h.pod", "=head1 " + "C<< " * n + "x\n\ntext\n=head1 C<< b >>\n")
    assert pod.sections[-1].heading_path == ("b",) and pod.sections[0].heading_path[0].startswith("C<< C<<")
    texi = _parse("h.texi", "@chapter " + "@code{" * n + "\n@deffn " + " " * n + "Command run\n")
    assert texi.sections[-1].heading_path[-1] == "run"

