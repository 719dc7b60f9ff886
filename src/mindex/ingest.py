"""Indexing one source: discover, skip unchanged files, parse in parallel, write in batches.

Only files whose size or mtime changed are read; of those, only files whose bytes hash
differently are parsed. Parsing runs in worker processes; the single writer commits whole
documents in batches, so a run killed at any moment leaves a consistent index that the next
run completes.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING

from mindex.config import IndexSettings
from mindex.errors import BudgetExceededError, EmbeddingMismatchError, SourcePathError
from mindex.models import Document, IndexReport, SkippedFile, Source
from mindex.sources import SOURCE_KINDS
from mindex.sources.docs import LoadResult, LoadTask, Unchanged
from mindex.sources.walk import FileEntry
from mindex.store.base import Store
from mindex.terms import EMBED_FORMAT, embedding_text

if TYPE_CHECKING:
    from mindex.embed.base import Embedder

Progress = Callable[[str, int, int], None]
"""Called as progress(source name, files done, files to do)."""

# Bump when parsing or chunking makes different chunks from the same bytes: an index made by
# another version parses every file again on its next run (the content hash alone would
# keep the old chunks).
# 51: what a Rust, C#, Kotlin, Swift or PHP function says it returns (a `returns` reference); 42: a Texinfo definition (`@defun`) is a section of its own; 41: Perl's calls and `use` imports, `.t` scripts are Perl; 40: a shell builtin (`return`, `local`, `echo`) is no call, `\. f.sh` sources; 39: shell scripts' calls and `source` imports; 38: Org, RDoc, POD and Texinfo pages are read as docs, in a code source too; 37: a class's closing `}` (`end`, `};`) ends its last member's chunk; 36: Dart's calls, imports, supertypes and typed names, a function's span to its body's end; 35: Elixir's calls and `alias` imports; 34: Lua's calls and `require` imports (33 was a chunking rule tried and dropped); 32: Elixir's definitions (`def`, `defmodule`, ...), its `@doc` with them; 31: an AsciiDoc page's `~~~~` block holds no heading; 30: Swift's calls, imports, supertypes and typed names; 29: Kotlin's, Swift's and Dart's signatures hold their parameters; 28: a PHP class's typed properties; 27: a changelog's `1.3 beta3` is a version of its own, `beta2` sorts as beta 2; 26: a Java, C# or Kotlin class's fields are `type` references, called on here or not; 25: a C# base list's `IName` is an interface; 24: manual pages (roff) are read as their text; 23: a Java, C#, Kotlin or C++ call records how many arguments it passes; 22: calls, imports and supertypes of Ruby, PHP, C# and Kotlin; 21: what a Java variable, parameter or field is declared as (a `type` reference); 20: a supertype with type arguments or a package (`extends TypeAdapter<T>`); 19: each call of a chain written over lines is on the line of its name; 18: JavaScript's `export { f } from './m'` and `export * from` are imports; 17: a Jupyter
# notebook is read as its cells' text; 16: AsciiDoc (`.adoc`) is read as docs, in
# a code source too; 15: a Python module's
# `a = b = name` is an `alias` reference; 14: a code block or table over
# eight chunks long is cut; an HTML heading in a list item is a
# heading; 13 (12 chunked them): a JavaScript class field holding a function is a method; 11: a
# JavaScript function bound by `const f = () =>` is a chunk of its own; 10: JavaScript functions
# assigned to properties (`exports.f = function`); 9: a Python decorator without arguments calls
# what it names; 8: a markdown heading as it reads (links, entities, escapes); 7: prose chunked
# by heading; loops' items, callbacks' parameters, `_Private()` (6: holds)
PARSER_VERSION = "60"
BATCH_DOCUMENTS = 64
BATCH_CHUNKS = 2000
# A large first index (`BULK_FILES`) on SQLite commits batches of at least this share of
# what the run has written: a commit writes each page its inserts touched, and a chunk's
# random id (and each new name) lands on a page of its own once the indexes outgrow a batch,
# so fixed batches cost more a chunk as the index grows (the writer's CPU a chunk 45 µs at
# 73,000 chunks, 86 µs at a million with batches of 2,000 chunks; 72 µs with 8,000, 66 µs
# with 32,000). At most BATCH_MOST chunks, whose commit holds the write lock about a second
# at a million chunks: a session hook waits two (`agents.hook_lock_timeout`).
BATCH_GROWTH = 32
BATCH_MOST = 16_000
# From this many files, a source's first index writes in bulk (`Store.bulk_load`).
BULK_FILES = 500
# Below this many files, a process pool costs more to start than it saves.
PARALLEL_THRESHOLD = 24


def _follow_parent(parent: int) -> None:
    """Worker start-up: leave Ctrl-C to the parent (which stops the pool), and exit as soon
    as the parent is gone, even when it was killed and could not stop the pool itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="mindex-parent-watch", daemon=True).start()


def _load_all(
    load: Callable[[LoadTask], LoadResult], tasks: list[LoadTask], workers: int
) -> Iterator[LoadResult]:
    if workers <= 1 or len(tasks) < PARALLEL_THRESHOLD:
        yield from map(load, tasks)
        return
    from concurrent.futures import ProcessPoolExecutor  # here: a run with nothing to parse never starts one

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_follow_parent, initargs=(os.getpid(),))
    try:
        yield from pool.map(load, tasks, chunksize=max(1, min(16, len(tasks) // (workers * 8))))
    finally:
        # On an error or Ctrl-C, queued files are dropped rather than parsed for nothing.
        pool.shutdown(wait=True, cancel_futures=True)


def index_source(
    store: Store, source: Source, settings: IndexSettings, progress: Progress | None = None,
    reparse: bool = False,
) -> IndexReport:
    """Bring one source's documents in the store up to date with its folder; with `reparse`,
    every file is parsed again whatever its size, time or hash.

    Raises:
        SourcePathError: the source's folder is gone or is not a folder.
    """
    started = time.perf_counter()
    if not os.path.isdir(source.root):
        raise SourcePathError(
            f"source {source.name!r}: {source.root} is missing or not a folder; "
            f"restore it, or drop the source with `mindex remove {source.name}`"
        )
    assert source.id is not None
    # The root was resolved when it was added: if it resolves elsewhere now, a folder on its
    # path was swapped for a link, and following it could read anything.
    real_root = os.path.realpath(source.root)
    if real_root != source.root:
        raise SourcePathError(
            f"source {source.name!r}: {source.root} now leads to {real_root} through a symlink; "
            f"if that is meant, `mindex remove {source.name}` and add {real_root}"
        )
    with store.indexing(source.name):
        return _index_source(store, source, settings, real_root, progress, reparse, started)


def _cede_nested(store: Store, source: Source, entries: list[FileEntry]) -> tuple[list[FileEntry], list[SkippedFile]]:
    """Leave to a source registered on a folder inside this one the files it lists (the
    quick start's `docs` inside a repository added as code), so each file is indexed, and
    found, once; a skipped entry per such folder says which source has them."""
    inner = {}
    for stats in store.list_sources():
        other = stats.source
        prefix = os.path.relpath(other.root, source.root).replace(os.sep, "/")
        if other.root.startswith(source.root.rstrip(os.sep) + os.sep) and any(
                entry.rel.startswith(prefix + "/") for entry in entries) and os.path.isdir(other.root):
            listed, _ = SOURCE_KINDS[other.kind].discover(other)
            inner[prefix] = (other.name, {f"{prefix}/{entry.rel}" for entry in listed})
    if not inner:
        return entries, []
    theirs = set().union(*(files for _, files in inner.values()))
    kept = [entry for entry in entries if entry.rel not in theirs]
    ceded = [SkippedFile(prefix, f"folder of source {name!r} ({len(files):,} file{'s' * (len(files) != 1)} it indexes)")
             for prefix, (name, files) in inner.items() if files]
    return kept, ceded


def _index_source(store: Store, source: Source, settings: IndexSettings, real_root: str,
                  progress: Progress | None, reparse: bool, started: float) -> IndexReport:
    assert source.id is not None
    kind = SOURCE_KINDS[source.kind]
    report = IndexReport()
    entries, skipped = kind.discover(source)
    entries, ceded = _cede_nested(store, source, entries)
    report.skipped.extend(skipped + ceded)
    markers = store.document_markers(source.id)
    # Files skipped for their bytes last time, skipped again without a read while unchanged
    # (the stdlib has 81: reading them every run started a worker pool for a no-op run).
    remembered = {} if reparse else store.skipped_markers(source.id)
    tasks: list[LoadTask] = []
    present: set[str] = set()
    for entry in entries:
        present.add(entry.rel)
        known = markers.get(entry.rel)
        if entry.size > settings.max_file_bytes:
            limit = settings.max_file_bytes / 1_048_576
            report.skipped.append(
                SkippedFile(entry.rel, f"larger than the {limit:g} MB limit (index.max_file_bytes)")
            )
            present.discard(entry.rel)
        elif not reparse and known is not None and known[0] == entry.size and known[1] == entry.mtime_ns:
            report.unchanged += 1
        elif known is None and (seen := remembered.get(entry.rel)) and seen[:2] == (entry.size, entry.mtime_ns):
            report.skipped.append(SkippedFile(entry.rel, seen[2], entry.size, entry.mtime_ns))
        else:
            tasks.append(
                LoadTask(source.name, real_root, entry, known[2] if known and not reparse else None,
                         settings.chunk_size, settings.chunk_overlap, settings.overlap == "sentences")
            )
    deleted = [path for path in markers if path not in present]
    # A large source indexed for the first time writes without secondary indexes (built
    # once at the end; with documents already there, deletes need them), in growing batches.
    first = not markers and len(tasks) >= BULK_FILES
    writer = _BatchWriter(store, source.id, report, markers, getattr(kind, "batch_group", None), tasks,
                          first and store.batches_grow)
    writer.deletes.extend(deleted)
    workers = settings.workers or os.cpu_count() or 1
    if progress:
        progress(source.name, 0, len(tasks))
    bulk = store.bulk_load() if first else nullcontext()
    with bulk:
        try:
            for done, result in enumerate(_load_all(kind.load, tasks, workers), start=1):
                writer.add(result)
                if progress:
                    progress(source.name, done, len(tasks))
        except KeyboardInterrupt:
            # Ctrl-C: the files parsed so far are written (whole documents) before the run
            # stops, so the next run does not parse them again.
            writer.finish()
            raise
        writer.finish()
    report.removed = len(deleted) + writer.dropped
    store.finish_run(source.id, report.skipped)
    report.seconds = time.perf_counter() - started
    return report


class _BatchWriter:
    """Collects load results and commits them in transactions of whole documents. A source
    kind may name groups of files (`batch_group(path)`; changelogs: a product's releases),
    each written in one transaction of its own, whatever order the workers finish them in."""

    def __init__(
        self, store: Store, source_id: int, report: IndexReport,
        markers: dict[str, tuple[int, int, str]], group: Callable[[str], str] | None = None,
        tasks: Sequence[LoadTask] = (), growing: bool = False,
    ) -> None:
        self.store, self.source_id, self.report, self.markers = store, source_id, report, markers
        self.group = group
        self.growing = growing  # batches grow with what the run has written (`BATCH_GROWTH`)
        self.left: dict[str, int] = {}
        for task in tasks if group else ():
            key = group(task.entry.rel)  # type: ignore[misc]
            self.left[key] = self.left.get(key, 0) + 1
        self.held: dict[str, list[Document]] = {}
        self.upserts: list[Document] = []
        self.touches: list[tuple[str, int, int]] = []
        self.deletes: list[str] = []
        self.chunks = 0
        self.dropped = 0

    def add(self, result: LoadResult) -> None:
        if isinstance(result, Unchanged):
            entry = result.entry
            self.touches.append((entry.rel, entry.size, entry.mtime_ns))
            self.report.unchanged += 1
            path = entry.rel
        elif isinstance(result, SkippedFile):
            self.report.skipped.append(result)
            if result.path in self.markers:  # it was indexed before: it must not linger
                self.deletes.append(result.path)
                self.dropped += 1
            path = result.path
        else:
            for problem in result.metadata.get("problems", ()):  # a journal's broken blocks: file:line
                where, _, why = problem.partition(": ")
                self.report.skipped.append(SkippedFile(where, why))
            if self.group:
                self.held.setdefault(self.group(result.path), []).append(result)
            else:
                self.upserts.append(result)
                self.chunks += len(result.chunks)
            if result.path in self.markers:
                self.report.updated += 1
            else:
                self.report.added += 1
            self.report.chunks += len(result.chunks)
            self.report.bytes += result.size
            path = result.path
        if self.group:
            key = self.group(path)
            self.left[key] = self.left.get(key, 1) - 1
            if self.left[key] <= 0:
                self._write_group(key)
        documents, chunks = batch_limits(self.report.chunks if self.growing else 0)
        if len(self.upserts) + len(self.touches) >= documents or self.chunks >= chunks:
            self.flush()

    def _write_group(self, key: str) -> None:
        documents = self.held.pop(key, [])
        if documents:
            self.store.write_batch(self.source_id, documents, [], [])

    def flush(self) -> None:
        if self.upserts or self.touches or self.deletes:
            self.store.write_batch(self.source_id, self.upserts, self.touches, self.deletes)
        self.upserts, self.touches, self.deletes, self.chunks = [], [], [], 0

    def finish(self) -> None:
        """The last write of a run: any group not complete yet (a file that raised) lands whole."""
        for key in list(self.held):
            self._write_group(key)
        self.flush()


def batch_limits(written: int) -> tuple[int, int]:
    """(documents, chunks) a batch commits at, once a run has written `written` chunks in
    growing batches (0 for fixed ones): `BATCH_CHUNKS`, or a `BATCH_GROWTH`th of what is
    written when more, up to `BATCH_MOST`, with documents in proportion."""
    chunks = max(BATCH_CHUNKS, min(BATCH_MOST, written // BATCH_GROWTH))
    return BATCH_DOCUMENTS * chunks // BATCH_CHUNKS, chunks


def pin_embedder(store: Store, embedder: Embedder, force: bool = False) -> None:
    """Record the embedder in `schema_meta`, or refuse one that differs from the recorded.

    Raises:
        EmbeddingMismatchError: the index holds vectors of another model or dimension.
    """
    if not embedder.dimensions:  # an HTTP embedder learns its size from one answer
        embedder.embed_batch(["dimensions"])
    model, dim = store.get_meta("embed_model"), store.get_meta("embed_dim")
    same = model == embedder.identity and dim == str(embedder.dimensions)
    if same and store.get_meta("embed_format") != EMBED_FORMAT:
        # Vectors of text written another way (an older mindex): make them again.
        store.drop_vectors(keep_model=None)
        store.set_meta({"embed_format": EMBED_FORMAT})
        return
    if force or model is None:
        if force:
            store.drop_vectors(keep_model=None)
        store.set_meta({"embed_model": embedder.identity, "embed_dim": str(embedder.dimensions),
                        "embed_format": EMBED_FORMAT})
        return
    if not same:
        raise mismatch(model, dim, embedder.identity, embedder.dimensions)


def mismatch(model: str | None, dim: str | None, identity: str, dimensions: int) -> EmbeddingMismatchError:
    """The error for vectors of another model, or of the same model at another dimension
    (then it names the dimension and embed.dimensions, not the same model twice)."""
    if model == identity:
        return EmbeddingMismatchError(
            f"the index holds {model} vectors of {dim} dimensions but embed.dimensions asks for {dimensions}; "
            f"set embed.dimensions back to {dim}, or re-embed with `mindex embed --force`"
        )
    size = f" ({dimensions} dimensions)" if dimensions else ""  # a remote model not asked anything yet
    return EmbeddingMismatchError(
        f"the index was embedded with {model} ({dim} dimensions) but the configured model is "
        f"{identity}{size}; re-embed with `mindex embed --force`, or set embed.model back"
    )


# A line of an import block or a comment, in the languages mindex parses (not C's #define,
# #if and the like: those say something).
_TRIVIAL_LINE = re.compile(
    r"\s*(?:$|import\s|from\s+\S+\s+import\s|#\s*(?:include|import)\b|using\s+[\w.]+\s*;|use\s+[\w:{}, *]+;"
    r"|package\s+[\w.]+;?\s*$|(?:const|let|var)\s+\w+\s*=\s*require\(|export\s+\*\s+from\s|require\("
    r"|#(?!\s*(?:define|if|ifdef|ifndef|elif|else|endif|undef|pragma|error|line)\b)|//|/\*|\*)")


def trivial(text: str) -> bool:
    """True for a code chunk that holds only imports, comments and blank lines (not for
    prose: a markdown heading or bullet would pass for a comment)."""
    return all(_TRIVIAL_LINE.match(line) for line in text.split("\n"))


def embed_hashes(store: Store, embedder: Embedder, hashes: Sequence[str]) -> int:
    """Embed just these chunk texts (those of a memory save) when they have no vector yet:
    a save costs its own text, not a scan of every chunk (measured at 100k entries: the full
    scan made a save 171 ms). Returns how many were embedded."""
    pin_embedder(store, embedder)
    have = store.hashes_with_vectors(embedder.identity, list(dict.fromkeys(hashes)))
    todo = [h for h in dict.fromkeys(hashes) if h not in have]
    if not todo:
        return 0
    texts = store.texts_for(todo)
    todo = [h for h in todo if h in texts]
    vectors = embedder.embed_documents([embedding_text(*texts[h]) for h in todo])
    store.save_vectors(embedder.identity, [(h, v.astype("<f2").tobytes()) for h, v in zip(todo, vectors)])
    return len(todo)


def embed_pending(
    store: Store, embedder: Embedder, progress: Progress | None = None, force: bool = False,
    batch: int | None = None,
) -> int:
    """Embed every chunk text that has no vector for this embedder; returns how many it embedded.

    Texts go shortest first so each model batch pads little; every batch of `batch` texts
    (default: the embedder's `commit_every`) is committed on its own, so a killed run, or one
    stopped by a budget, resumes where it stopped.
    """
    batch = batch or embedder.commit_every
    pin_embedder(store, embedder, force)
    store.drop_vectors(keep_model=embedder.identity)  # vectors of edited or deleted chunks
    # By length, then hash: the same chunks make the same model batches whatever order a
    # backend lists them in, and a vector depends a little on its batch (the int8 model
    # scales each run's activations by the run's extremes).
    pending = sorted(store.pending_embeddings(embedder.identity), key=lambda row: (row[1], row[0]))
    if progress:
        progress("embedding", 0, len(pending))
    done = elsewhere = 0  # elsewhere: vectors another writer made while this run went on
    while done < len(pending):
        hashes = [digest for digest, _ in pending[done : done + batch]]
        # Vectors another writer made meanwhile (a memory save embeds its own entry) are not made twice.
        have = store.hashes_with_vectors(embedder.identity, hashes)
        if have:
            done += len(have)
            elsewhere += len(have)
            hashes = [h for h in hashes if h not in have]
            if not hashes:
                continue
        texts = store.texts_for(hashes)
        # A code chunk of nothing but imports and comments gets an empty vector: keyword
        # search still finds it, and the model spends nothing on it.
        code = store.code_hashes(hashes)
        empty = [h for h in hashes if h in code and trivial(texts[h][1])]
        if empty:
            store.save_vectors(embedder.identity, [(h, b"") for h in empty])
            done += len(empty)
            skipped = set(empty)
            hashes = [h for h in hashes if h not in skipped]
            if not hashes:
                continue
        try:
            vectors = embedder.embed_documents([embedding_text(*texts[h]) for h in hashes])
        except BudgetExceededError:
            # What is left of a budget may still fit a smaller batch: a budgeted run always
            # embeds what it can before it stops (a budget below one text says so).
            if len(hashes) == 1:
                raise
            batch = max(1, len(hashes) // 2)
            continue
        store.save_vectors(
            embedder.identity,
            [(h, v.astype("<f2").tobytes()) for h, v in zip(hashes, vectors)],
        )
        done += len(hashes)
        if progress:
            progress("embedding", done, len(pending))
    return len(pending) - elsewhere
