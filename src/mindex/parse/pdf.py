"""PDF into one section per page (page-aware), through the optional `pdf` extra (pypdfium2)."""

from __future__ import annotations

from pathlib import Path

from mindex.errors import DependencyMissingError
from mindex.models import ParsedDocument, Section


class PdfError(Exception):
    """The file is not a PDF pdfium can open (damaged, encrypted)."""


def parse_pdf(data: bytes, path: str) -> ParsedDocument:
    """Extract each page's text; `page` is 1-based and line spans stay empty.

    Raises:
        DependencyMissingError: pypdfium2 is not installed.
        PdfError: the file cannot be opened as a PDF.
    """
    try:
        import pypdfium2 as pdfium
    except ImportError:
        raise DependencyMissingError("pypdfium2", "pdf", "indexing PDF files") from None
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise PdfError(f"cannot open PDF ({exc})") from None
    try:
        title = ""
        try:
            title = (pdf.get_metadata_dict().get("Title") or "").strip()
        except Exception:  # metadata is best effort; a broken info dict must not lose the text
            title = ""
        sections = []
        for number in range(len(pdf)):
            page = pdf[number]
            textpage = page.get_textpage()
            text = textpage.get_text_bounded().replace("\r\n", "\n").replace("\r", "\n")
            textpage.close()
            page.close()
            if text.strip():
                sections.append(Section((f"page {number + 1}",), text.strip(), None, page=number + 1))
        return ParsedDocument(title or Path(path).stem, tuple(sections), {"pages": len(pdf)})
    finally:
        pdf.close()
