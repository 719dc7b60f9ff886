from __future__ import annotations

from pathlib import Path

from mindex.chunk import chunk_document
from mindex.models import ParsedDocument, Section
from mindex.parse.markdown import parse_markdown

PROSE = " ".join(f"Sentence number {n} talks about pools and retries." for n in range(60))


def doc(text: str) -> ParsedDocument:
    return parse_markdown(text, "doc.md")


def test_prose_is_split_within_the_size_budget() -> None:
    chunks = chunk_document("s", "doc.md", doc(f"# Title\n\n{PROSE}\n"), size=400, overlap=80)
    assert len(chunks) > 4
    assert all(len(c.text) <= 400 for c in chunks)
    assert chunks[0].text.startswith("# Title")


def test_consecutive_chunks_overlap_by_whole_sentences() -> None:
    chunks = chunk_document("s", "doc.md", doc(PROSE), size=400, overlap=120)
    for before, after in zip(chunks, chunks[1:]):
        first_sentence = after.text.split(". ")[0] + "."
        assert first_sentence in before.text


PARAGRAPHS = "\n\n".join(" ".join(f"Paragraph {p} sentence {n} says a little about caching." for n in range(6))
                         for p in range(8))  # paragraphs of ~330 characters: longer than the overlap


def test_overlap_by_sentences_repeats_a_long_paragraphs_last_sentences_within_the_budget() -> None:
    whole = chunk_document("s", "doc.md", doc(PARAGRAPHS), size=800, overlap=200)
    # whole paragraphs only: none fits in 200 characters, so nothing is repeated
    assert all(not after.text.startswith(before.text.split("\n\n")[-1][-60:]) for before, after in zip(whole, whole[1:]))
    assert sum(len(c.text) for c in whole) < len(PARAGRAPHS) + 10
    cut = chunk_document("s", "doc.md", doc(PARAGRAPHS), size=800, overlap=200, sentences=True)
    assert len(cut) > 1
    for before, after in zip(cut, cut[1:]):
        head = after.text.split("\n\n")[0]
        assert before.text.endswith(head) and 0 < len(head) <= 200  # the last sentences that fit
        assert head.startswith("Paragraph ")  # cut where a sentence starts, never inside one


def test_changing_the_overlap_setting_chunks_the_docs_again(tmp_path: Path) -> None:
    from mindex import Index
    from mindex.config import EmbedSettings, IndexSettings

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text(PARAGRAPHS)
    with Index(tmp_path / "i.db", IndexSettings(workers=1, chunk_size=800), embed=EmbedSettings(provider="none")) as ix:
        ix.add_source(folder, name="docs")
        assert ix.index()["docs"].added == 1
        before = sorted(ix.get(cid).text for (cid,) in ix.store.conn.execute("SELECT id FROM chunks"))  # type: ignore[attr-defined]
    with Index(tmp_path / "i.db", IndexSettings(workers=1, chunk_size=800, overlap="sentences"),
               embed=EmbedSettings(provider="none")) as ix:
        assert ix.index()["docs"].unchanged == 0  # the same bytes, chunked anew
        ids = [cid for (cid,) in ix.store.conn.execute("SELECT id FROM chunks")]  # type: ignore[attr-defined]
        stored = sorted(ix.get(cid).text for cid in ids)
    expected = chunk_document("docs", "guide.md", doc(PARAGRAPHS), size=800, overlap=200, sentences=True)
    assert stored == sorted(c.text for c in expected) and stored != before


def test_zero_overlap_repeats_nothing() -> None:
    chunks = chunk_document("s", "doc.md", doc(PROSE), size=400, overlap=0)
    sentences = [s for c in chunks for s in c.text.split(". ")]
    assert len(sentences) == len(set(sentences))


def test_fenced_code_block_is_never_split() -> None:
    code = "```python\n" + "\n".join(f"x_{n} = {n}  # comment" for n in range(80)) + "\n```"  # 3.5 budgets
    chunks = chunk_document("s", "doc.md", doc(f"# Code\n\nIntro.\n\n{code}\n\nAfter.\n"), size=500, overlap=50)
    holders = [c for c in chunks if "x_0 = 0" in c.text]
    assert len(holders) == 1 and code in holders[0].text
    assert sum(c.text.count("```") for c in chunks) == 2


def test_table_is_never_split() -> None:
    table = "| a | b |\n| - | - |\n" + "\n".join(f"| row{n} | value{n} |" for n in range(40))
    chunks = chunk_document("s", "doc.md", doc(f"Text before.\n\n{table}\n"), size=300, overlap=40)
    holders = [c for c in chunks if "row0" in c.text]
    assert len(holders) == 1 and table in holders[0].text


def test_a_code_block_or_table_over_eight_budgets_is_cut_between_lines() -> None:
    """Javadoc's source pages are one `<pre>` each (a 434 KB chunk, whole, where a chunk is
    1,500 characters): a block over `WHOLE` budgets is cut between lines, each piece fenced
    again (a table's under its header), its lines those of the file."""
    code = "```java\n" + "\n".join(f"int x{n} = {n}; // line {n}" for n in range(400)) + "\n```"
    text = f"# Source\n\nIntro.\n\n{code}\n\nAfter.\n"
    chunks = chunk_document("s", "doc.md", doc(text), size=500, overlap=50)
    pieces = [c for c in chunks if "int x" in c.text]
    assert len(pieces) > 10 and all(len(c.text) <= 500 + len("Intro.\n\n") for c in pieces)
    assert all(c.text.count("```java") == 1 and c.text.count("```") == 2 for c in pieces)
    lines = text.split("\n")
    for c in pieces:  # each piece's span holds its code lines
        body = [line for line in c.text.split("\n") if line.startswith("int x")]
        assert {body[0], body[-1]} <= set(lines[c.start_line - 1 : c.end_line])
    found = [line for c in pieces for line in c.text.split("\n") if line.startswith("int x")]
    assert found == [f"int x{n} = {n}; // line {n}" for n in range(400)]  # every line once, in order
    table = "| n | value |\n| - | - |\n" + "\n".join(f"| {n} | value {n} |" for n in range(300))
    rows = [c for c in chunk_document("s", "t.md", doc(table), size=300, overlap=40)]
    assert len(rows) > 10 and all(c.text.startswith("| n | value |\n| - | - |") for c in rows)


def test_context_line_is_the_heading_breadcrumb() -> None:
    chunks = chunk_document("s", "guide/a.md", doc("# One\n\nx\n\n## Two\n\ny\n"))
    assert [c.context for c in chunks] == ["guide/a.md › One", "guide/a.md › One › Two"]
    assert [c.title for c in chunks] == ["One", "Two"]


def test_line_spans_point_at_the_chunk_text_in_the_file() -> None:
    text = "# T\n\n" + "\n\n".join(f"Paragraph {n} line one.\nParagraph {n} line two." for n in range(30))
    lines = text.split("\n")
    for chunk in chunk_document("s", "doc.md", doc(text), size=200, overlap=0):
        assert chunk.start_line is not None and chunk.end_line is not None
        span = "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert span == chunk.text


def test_ids_are_stable_and_survive_edits_elsewhere() -> None:
    first = chunk_document("s", "doc.md", doc("# A\n\nalpha\n\n# B\n\nbeta\n"))
    again = chunk_document("s", "doc.md", doc("# A\n\nalpha\n\n# B\n\nbeta\n"))
    edited = chunk_document("s", "doc.md", doc("# A\n\nalpha changed\n\n# B\n\nbeta\n"))
    assert [c.id for c in first] == [c.id for c in again]
    assert first[1].id == edited[1].id and first[0].id != edited[0].id


def test_identical_chunks_get_distinct_ids() -> None:
    chunks = chunk_document("s", "doc.md", doc("# A\n\nsame\n\n# A\n\nsame\n"))
    assert len({c.id for c in chunks}) == 2


def test_page_sections_keep_their_page() -> None:
    parsed = ParsedDocument("m", (Section(("page 2",), "text", None, page=2),))
    (chunk,) = chunk_document("s", "m.pdf", parsed)
    assert chunk.page == 2 and chunk.start_line is None and chunk.context == "m.pdf › page 2"


def _split_long_counting_from_the_start(text: str, first_line: int, size: int) -> list[tuple[str, int, int]]:
    """The obvious form of `_split_long` (what it did before): lines counted from the start
    of the paragraph for every piece."""
    from mindex.chunk import _SENTENCE_END

    units = []
    starts = [0] + [m.end() for m in _SENTENCE_END.finditer(text)]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        piece_start = start
        while piece_start < end:
            piece_end = end
            if piece_end - piece_start > size:
                cut = text.rfind(" ", piece_start + 1, piece_start + size)
                piece_end = cut if cut > piece_start else piece_start + size
            piece = text[piece_start:piece_end].strip()
            if piece:
                units.append((piece, first_line + text.count("\n", 0, piece_start),
                              first_line + text.count("\n", 0, piece_end)))
            piece_start = piece_end
    return units


def test_a_long_paragraph_splits_with_the_lines_of_each_piece() -> None:
    """Lines are counted onwards from the previous piece (counting from the paragraph's start
    for every piece made a 10 MB one-line file take 28 s to chunk); the pieces and their lines
    are those the obvious form gives."""
    import random

    from mindex.chunk import _split_long

    rng = random.Random(5)
    for _ in range(500):
        text = " ".join(rng.choice(["alpha", "beta.", "gamma!", "\n", "delta?", "x" * rng.randint(1, 40), "\n\n"])
                        for _ in range(rng.randint(0, 300)))
        size, first = rng.randint(5, 200), rng.randint(0, 50)
        assert [(u.text, u.first, u.last) for u in _split_long(text, first, 3, size)] == \
            _split_long_counting_from_the_start(text, first, size)

