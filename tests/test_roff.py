"""Manual pages (roff): jq's `jq.1.prebuilt` was indexed as raw markup (`\\fB\\-\\-arg\\fR`) and a
folder of `.1` pages as nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

from mindex import Index
from mindex.parse import PARSERS
from mindex.parse.roff import looks_like_roff, parse_roff
from mindex.serve.render import fence_tag

FIXTURES = Path(__file__).parent / "fixtures" / "man"


def test_a_man_page_reads_as_its_reader_sees_it_line_for_line() -> None:
    text = (FIXTURES / "sqlite3.1").read_text(encoding="utf-8")
    page = PARSERS[".1"](text, "sqlite3.1")
    assert page.title == "SQLITE3(1)"
    assert [s.heading_path for s in page.sections][:4] == [("NAME",), ("SYNOPSIS",), ("SUMMARY",), ("DESCRIPTION",)]
    name = page.sections[0].text
    assert name.splitlines() == ["# NAME", "**sqlite3**", "- A command line interface for SQLite version 3"]
    options = next(s.text for s in page.sections if s.heading_path == ("OPTIONS",))
    assert "\n-cmd command\nrun\n*command*\n" in options  # `.BI \-cmd\  command`: an escaped space kept
    body = "\n".join(s.text for s in page.sections)
    assert "\\f" not in body and "\\-" not in body and "\n.TP" not in body and "\n.B " not in body
    lines = text.split("\n")
    for section in page.sections:  # each section starts on its own `.SH`/`.SS` line
        assert lines[section.start_line - 1].split(" ", 1)[0] in (".SH", ".SS")
        assert len(section.text.split("\n")) <= len(lines) - section.start_line + 1


def test_an_mdoc_page_reads_its_macros() -> None:
    page = parse_roff((FIXTURES / "ssh.1").read_text(encoding="utf-8"), "ssh.1")
    assert page.title == "SSH(1)"
    synopsis = next(s.text for s in page.sections if s.heading_path == ("SYNOPSIS",))
    assert "[-B bind_interface]" in synopsis and "[-D [bind_address:]port]" in synopsis
    assert "[-w local_tun[:remote_tun]]" in synopsis and "[command [argument ...]]" in synopsis
    description = next(s.text for s in page.sections if s.heading_path == ("DESCRIPTION",))
    assert "ssh://[user@]hostname[:port]." in description  # `.Sm off`: no spaces, the stop outside
    assert "\nssh\nconnects and logs into the specified" in description  # `.Nm` repeats the name
    assert "Fl " not in description and ".It" not in description


def test_a_folder_of_man_pages_and_a_page_of_another_suffix_are_found(index: Index, tmp_path: Path) -> None:
    man = tmp_path / "man"
    man.mkdir()
    for page in FIXTURES.glob("*.1"):
        shutil.copy(page, man / page.name)
    index.add_source(man, name="man", kind="docs")
    report = index.index()["man"]
    assert report.added == 2 and not report.skipped
    hits = index.search("jump host ProxyJump destination", limit=3).hits
    assert hits[0].path == "ssh.1" and hits[0].context.startswith("ssh.1 › DESCRIPTION")
    assert fence_tag(hits[0]) == "markdown" and "\\f" not in hits[0].text
    repo = tmp_path / "repo"  # a C project's prebuilt page (jq's `jq.1.prebuilt`) and its code
    repo.mkdir()
    shutil.copy(FIXTURES / "sqlite3.1", repo / "sqlite3.1.prebuilt")
    (repo / "shell.c").write_text("int main(void) { return 0; }\n")
    index.add_source(repo, name="repo", kind="code")
    index.index(["repo"])
    found = [h for h in index.search("sqlite3 command line interface", limit=10).hits if h.source == "repo"]
    assert found[0].path == "sqlite3.1.prebuilt" and found[0].language == "man" and found[0].prose
    assert "SQLITE3(1)" in found[0].context or found[0].context.startswith("sqlite3.1.prebuilt")
    assert fence_tag(found[0]) == "markdown" and "\\-" not in found[0].text


def test_plain_text_named_like_a_page_and_hostile_pages_are_read() -> None:
    plain = parse_roff("Notes\n\nC:\\new\\table is a path.\n", "NOTES.1")
    assert "C:\\new\\table" in plain.sections[0].text  # no request: read as plain text
    assert not looks_like_roff("Notes\n.TH is no macro here\n") and looks_like_roff('.\\" c\n.TH X 1\n')
    for hostile in (".TH X 1\n" + "\\" * 200_000, ".TH X 1\n.Op " + "Op " * 50_000, ".TH X 1\n" + "\\f(" * 60_000,
                    '.TH X 1\n.B "' + "a " * 100_000, ".TH X 1\n" + ".Sm off\n" * 20_000):
        assert parse_roff(hostile, "x.1").title == "X(1)"  # in linear time: a quadratic read would take minutes


def test_a_code_sources_file_named_like_a_page_but_not_one_stays_text(index: Index, tmp_path: Path) -> None:
    """The standard library's tests keep INI files named `cfgparser.1`: not manual pages, so
    not docs."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "cfgparser.1").write_text("[Foo Bar]\nfoo=bar1\n\n[Spacey Bar]\nfoo = bar2\n")
    (repo / "parse.py").write_text("def parse(text):\n    return text\n")
    index.add_source(repo, name="repo", kind="code")
    index.index()
    (hit,) = [h for h in index.search("Spacey Bar", limit=5).hits if h.path == "cfgparser.1"]
    assert not hit.prose and hit.language != "man"
