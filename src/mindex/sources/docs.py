"""The docs source: folders of markdown, MDX, HTML, reStructuredText, text and PDF files."""

from __future__ import annotations

import codecs
import hashlib
from dataclasses import dataclass
from pathlib import Path

import pathspec

from mindex.chunk import chunk_document
from mindex.errors import DependencyMissingError, extra_hint
from mindex.models import Document, ParsedDocument, SkippedFile, Source
from mindex.parse import BINARY_SUFFIXES, PARSERS, UnreadableInput
from mindex.sources.confine import OutsideRootError, read_inside
from mindex.sources.walk import FileEntry, walk_files
from mindex.logs import get_logger

log = get_logger("mindex")

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True)
class LoadTask:
    """Everything a worker process needs to turn one file into a document."""

    source: str
    root: str  # the source's folder, resolved: nothing outside it is read
    entry: FileEntry
    known_hash: str | None
    chunk_size: int
    chunk_overlap: int
    overlap_sentences: bool = False  # index.overlap = "sentences"


@dataclass(frozen=True)
class Unchanged:
    """The file's bytes hash as before: only its size/mtime markers need refreshing."""

    entry: FileEntry


LoadResult = Document | Unchanged | SkippedFile


def decode(data: bytes) -> tuple[str, str]:
    """Decode file bytes: BOM, then UTF-8, then cp1252, then latin-1 (never fails).

    Returns the text and the encoding used, which is kept in the document's metadata.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding), encoding
            except UnicodeDecodeError:
                break
    for encoding in ("utf-8", "cp1252"):
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1"), "latin-1"


def file_text(data: bytes) -> tuple[str, str]:
    """A file's text as it is indexed, and its encoding (`decode`): lines end at "\n" only, a
    "\r\n" or a lone "\r" read as one. A form feed or a U+2028 stays text inside its line, as
    tree-sitter, grep and editors count lines; whatever numbers a file's lines again (the web
    UI showing a chunk in its file) splits this text at "\n", never with `str.splitlines`."""
    text, encoding = decode(data)
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def looks_binary(data: bytes) -> bool:
    head = data[:8192]
    if any(head.startswith(bom) for bom, _ in _BOMS):
        return False
    return b"\x00" in head


def _parse(task: LoadTask, data: bytes) -> tuple[ParsedDocument, dict[str, object]] | SkippedFile:
    entry = task.entry
    suffix = Path(entry.rel).suffix.lower()
    if suffix in BINARY_SUFFIXES:
        from mindex.parse.pdf import PdfError, parse_pdf

        try:
            parsed = parse_pdf(data, entry.rel)
            if not parsed.sections:  # scanned pages are pictures: nothing to search until OCR adds text
                pages = parsed.metadata.get("pages")
                return SkippedFile(entry.rel, f"PDF without text ({pages} pages of images?): run OCR on it "
                                   "(e.g. ocrmypdf) to index it", entry.size, entry.mtime_ns)
            return parsed, {"format": "pdf"}
        except PdfError as exc:
            return SkippedFile(entry.rel, f"not a readable PDF: {exc}")
        except DependencyMissingError:
            return SkippedFile(entry.rel, f"PDF support is not installed: {extra_hint('pdf')}")
    if looks_binary(data):
        return SkippedFile(entry.rel, f"binary content in a {suffix} file", entry.size, entry.mtime_ns)
    text, encoding = file_text(data)
    parsed = PARSERS[suffix](text, entry.rel)
    return parsed, {"format": suffix.lstrip("."), "encoding": encoding}


def read_changed(task: LoadTask) -> tuple[bytes, str] | LoadResult:
    """The file's bytes and sha256 when they changed; otherwise why there is nothing to parse
    (unchanged, vanished, unreadable, empty). Shared by every file-based source kind."""
    entry = task.entry
    try:
        data = read_inside(task.root, entry.abspath)
    except OutsideRootError as exc:
        return SkippedFile(entry.rel, str(exc))
    except FileNotFoundError:
        return SkippedFile(entry.rel, "vanished while indexing")
    except PermissionError:
        return SkippedFile(entry.rel, "permission denied: cannot read the file")
    except OSError as exc:
        return SkippedFile(entry.rel, f"unreadable: {exc.strerror or exc}")
    if not data.strip():
        return SkippedFile(entry.rel, "empty file", entry.size, entry.mtime_ns)
    digest = hashlib.sha256(data).hexdigest()
    return Unchanged(entry) if digest == task.known_hash else (data, digest)


def parser_failed(rel: str, exc: Exception) -> SkippedFile:
    """The skip reason for a file a parser choked on (logged with its traceback at debug)."""
    if isinstance(exc, UnreadableInput):
        return SkippedFile(rel, str(exc))
    log.debug("parser failed on %s", rel, exc_info=exc)
    return SkippedFile(rel, f"parser failed ({type(exc).__name__}: {exc}); please report it")


def load(task: LoadTask) -> LoadResult:
    """Read, hash, parse and chunk one file. Runs in a worker process; never raises."""
    entry = task.entry
    read = read_changed(task)
    if not isinstance(read, tuple):
        return read
    data, digest = read
    try:
        outcome = _parse(task, data)
    except Exception as exc:  # bad input must not stop the run; the reason goes in the summary
        return parser_failed(entry.rel, exc)
    if isinstance(outcome, SkippedFile):
        return outcome
    parsed, extra = outcome
    chunks = chunk_document(task.source, entry.rel, parsed, task.chunk_size, task.chunk_overlap,
                            task.overlap_sentences)
    if not chunks:  # listed, so a search that finds nothing in it is not a mystery
        why = ("HTML without text (a page its scripts fill in? index the pages as rendered)"
               if extra.get("format") in ("html", "htm") else "no text to index")
        return SkippedFile(entry.rel, why, entry.size, entry.mtime_ns)
    metadata = {**parsed.metadata, **extra}
    error = metadata.get("front_matter_error")
    if error:
        log.info("%s: %s (indexed without it)", entry.rel, error)
    return Document(
        entry.rel, "docs", parsed.title, len(data), entry.mtime_ns, digest, metadata, chunks
    )


def _globs(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec | None:
    return pathspec.GitIgnoreSpec.from_lines(patterns) if patterns else None


def discover(source: Source) -> tuple[list[FileEntry], list[SkippedFile]]:
    """List the source's candidate files and the ones skipped while walking."""
    suffixes = [*PARSERS, *BINARY_SUFFIXES]
    files, skipped = walk_files(source.root, suffixes, _globs(source.include), _globs(source.exclude))
    return _sphinx_copies(source, files, skipped) if not source.include else (files, skipped)


# What Sphinx writes beside the pages of an HTML build (a folder holding one of `SPHINX_MARKS`),
# with the reason each is left out: every page twice over (its `.rst.txt` source
# under `_sources/`, with no headings), the code the API pages document as highlighted HTML
# under `_modules/` (which outranked the pages for "how do I add a custom directive" in
# Sphinx's own manual), and index pages that list every name.
SPHINX_FOLDERS = {"_sources": "folder of Sphinx's copies of the pages' sources",
                  "_modules": "folder of Sphinx's highlighted copies of the code",
                  "_static": "folder of Sphinx's theme files"}
SPHINX_PAGES = ("genindex.html", "search.html", "py-modindex.html")
SPHINX_MARKS = ("searchindex.js", "objects.inv", "_static/documentation_options.js", "_static/doctools.js")


def _sphinx_copies(source: Source, files: list[FileEntry],
                   skipped: list[SkippedFile]) -> tuple[list[FileEntry], list[SkippedFile]]:
    """`files` without what Sphinx copies into an HTML build (`SPHINX_FOLDERS`, `SPHINX_PAGES`,
    `genindex-A.html`), each folder named once in `skipped` with how many files it held; a
    source given `--include` globs keeps what they chose."""
    # A build's top holds its index.html: only those folders are asked for a mark.
    tops = {f.rel[: -len("index.html")] for f in files if f.rel == "index.html" or f.rel.endswith("/index.html")}
    builds = sorted((top for top in tops if any(Path(source.root, top, mark).is_file() for mark in SPHINX_MARKS)),
                    key=len, reverse=True)  # the innermost build first
    if not builds:
        return files, skipped
    kept: list[FileEntry] = []
    copies: dict[str, int] = {}
    for entry in files:
        base = next((b for b in builds if entry.rel.startswith(b)), None)
        rest = entry.rel[len(base):] if base is not None else ""
        top = rest.split("/", 1)[0] if "/" in rest else ""
        if base is not None and top in SPHINX_FOLDERS:
            copies[base + top] = copies.get(base + top, 0) + 1
        elif base is not None and (rest in SPHINX_PAGES or (rest.startswith("genindex-") and rest.endswith(".html"))):
            skipped.append(SkippedFile(entry.rel, "Sphinx's index page (the pages it lists are indexed)"))
        else:
            kept.append(entry)
    skipped += [SkippedFile(folder, f"{SPHINX_FOLDERS[folder.rsplit('/', 1)[-1]]} ({count:,} "
                            f"file{'s' * (count != 1)}; `--include` globs choose for themselves)")
                for folder, count in sorted(copies.items())]
    return kept, skipped
