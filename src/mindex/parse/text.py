"""Plain text: one section; the chunker splits it at paragraphs and sentences."""

from __future__ import annotations

from pathlib import PurePosixPath

from mindex.models import ParsedDocument, Section


def parse_text(text: str, path: str) -> ParsedDocument:
    """Parse a plain-text file into a single section titled by its first line."""
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    title = first[:80] if first else PurePosixPath(path).stem
    sections = (Section((), text.rstrip(), 1),) if text.strip() else ()
    return ParsedDocument(title, sections, {})
