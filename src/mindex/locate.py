"""The files a question is about (`mindex locate`): the indexed files a stack trace in it
names first, innermost frame first, then every other file by its best chunks (`file_scores`).

A frame is `File "path", line N` (Python; listed outermost first under "most recent call
last") or `path.ext:N` (JavaScript's `at f (/app/src/x.js:12:5)`, Go, Rust, Ruby, a Java
frame's `(Foo.java:12)`; listed innermost first). A frame's path names an indexed file when
the file's path ends with the frame's last parts, the most parts that any indexed file ends
with; a bare file name only when one file has it. Frames of files outside the index (the
standard library, site-packages) name nothing."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from mindex.models import FileHit, Hit, SearchResult
from mindex.search import file_scores

if TYPE_CHECKING:
    from mindex.graph import CodeGraph

_PYTHON = re.compile(r'File "(?P<path>[^"\n]+)", line (?P<line>\d+)')
_EXTENSIONS = ("py|pyi|pyx|js|mjs|cjs|jsx|ts|mts|cts|tsx|vue|svelte|go|rs|java|kt|kts|scala|groovy|rb|php|c|h|cc|cpp|"
               "cxx|hpp|hh|cs|swift|m|mm|ex|exs|erl|lua|dart|jl|pl|pm|sh|zig|hs|ml|clj")
# `.ext:N`, found first: the path before it is walked back by hand (a pattern that starts
# with the path's characters tries every start in a run of them: quadratic on pasted text)
_OTHER = re.compile(rf"(?<=[\w\-])\.(?:{_EXTENSIONS}):(?P<line>\d+)\b")
_PATH_CHARS = frozenset("._~@+-/\\")
MAX_FRAMES = 200  # a pasted log of thousands of lines reads its first frames only


def frames(text: str) -> list[tuple[str, int]]:
    """(path, line) of each frame the text holds, innermost first, each once."""
    python = [(m.group("path"), int(m.group("line"))) for m in _PYTHON.finditer(text)][:MAX_FRAMES]
    if "most recent call last" in text:
        python.reverse()
    rest = []
    other = _PYTHON.sub("", text)
    for m in _OTHER.finditer(other):
        start = m.start()  # back over the path's characters: to the last frame's `:` at most
        while start and (other[start - 1].isalnum() or other[start - 1] in _PATH_CHARS):
            start -= 1
        rest.append((other[start : m.end() - len(m.group("line")) - 1], int(m.group("line"))))
        if len(rest) == MAX_FRAMES:
            break
    return list(dict.fromkeys((path.replace("\\", "/"), line) for path, line in python + rest))


def traced(text: str, paths: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[int]]:
    """The indexed files (source, path) the text's frames name, in the order of the
    innermost frame naming each, with the lines they name, innermost first."""
    found = frames(text)
    if not found:
        return {}
    by_name: dict[str, list[tuple[str, str]]] = {}
    for source, path in paths:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append((source, path))
    out: dict[tuple[str, str], list[int]] = {}
    for path, line in found:
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if not parts:
            continue
        named = by_name.get(parts[-1], [])
        for k in range(len(parts), 0, -1):  # the longest tail any indexed path ends with
            tail = "/".join(parts[-k:])
            files = [f for f in named if f[1] == tail or f[1].endswith("/" + tail)]
            if files and (k > 1 or len(files) == 1):
                for file in files:
                    out.setdefault(file, []).append(line)
                break
    return {file: list(dict.fromkeys(lines)) for file, lines in out.items()}


def located(found: SearchResult, query: str, graph: CodeGraph, limit: int, logits: bool,
            chunk: Callable[[str], Hit]) -> list[FileHit]:
    """The files of `found`'s hits (a deep search of the question), a stack trace's first,
    each with its best three chunks (the chunk of a frame's line first) and the definitions in
    it that the question names; `chunk` reads a chunk by id (one no hit holds)."""
    chunks: dict[tuple[str, str], list[Hit]] = {}
    for hit in found.hits:
        chunks.setdefault((hit.source, hit.path), []).append(hit)
    framed = traced(query, graph.modules.by_path)
    named = {word.lower() for word in re.findall(r"\w+", query)}
    files = []
    ordered = file_scores(found.hits, logits)  # a file's score is the one that placed it
    for src, rel in list(dict.fromkeys([*framed, *ordered]))[:limit]:
        hits, lines = chunks.get((src, rel), []), framed.get((src, rel), [])
        doc_id = graph.modules.by_path.get((src, rel))
        if doc_id is not None and lines:
            held = {hit.id: hit for hit in hits}
            ids = [cid for line in lines if (cid := graph.chunk_at(doc_id, line)) is not None]
            hits = list({i: held.get(i) or replace(chunk(i), score=0.0) for i in [*ids, *held]}.values())
        if not hits:
            continue
        symbols = [s.name for s in graph.symbols_in(doc_id) if s.name.rsplit(".", 1)[-1].lower() in named] \
            if doc_id is not None else []  # not a code file
        score = max(h.score for h in hits) if lines else ordered[src, rel]  # a frame's chunk may be no hit (0)
        files.append(FileHit(src, rel, hits[0].language, score, tuple(hits[:3]), tuple(dict.fromkeys(symbols)),
                             tuple(lines)))
    return files
