"""The code graph: symbols found by name, and calls resolved to the definitions they reach.

References are stored as written (`self.adapter.send`, `from .models import Request`); they
are resolved here, when asked, against every file in the index, so no edge goes stale when
another file changes. Resolution uses what the language lets us know, best evidence first:

1. `self.m()` / `this.m()` (and a bare call in Java/C++/C# methods): the enclosing class's
   method, else an inherited one through the class's recorded bases (confidence 1.0 / 0.9).
2. A bare call to a name defined in the same file (1.0), or imported by name from a module
   whose file is indexed (0.95); Go functions of the same package, C functions of an
   included header's source file (0.9).
3. `alias.f()` where `alias` is an imported module (0.95); `Type.f()` / `Type::f()` (0.9).
4. Otherwise by name alone: the only definition with that name (0.6), or every one of
   several, each marked ambiguous (0.5 / n). Nothing is guessed silently: each edge says
   how it was resolved, and calls into code outside the index are reported as unresolved.
"""

from __future__ import annotations

import difflib
import os
import posixpath
import time
from collections.abc import Callable
from typing import Any

from mindex.errors import NotFoundError
from mindex.modes import DEFAULT_MIN_CONFIDENCE
from mindex.pathglob import glob_match
from mindex.store.base import ChunkSpan, Store, chunk_at
from mindex.graph_types import CLASSLIKE, Calls, Edge, FAMILY, IMPLICIT_THIS, JS_SUFFIXES, NOT_CALLABLE, Resolution, SELF_WORDS, SymbolRef, CallRef, shown_callees, shown_callers


class CodeGraph:
    """Queries over the stored symbols and references of every code source."""

    def __init__(self, store: Store, log: Callable[[str, dict[str, Any], int, float], None] | None = None) -> None:
        self.store = store
        self._log = log  # the query log (agents.query_log): kind, parameters, results, ms
        self.files = {doc_id: (source, path, language) for doc_id, source, path, language in store.code_files()}
        self._by_path: dict[tuple[str, str], int] = {(s, p): d for d, (s, p, _) in self.files.items()}
        self._suffix: dict[str, list[int]] = {}
        self._symbols_in: dict[int, list[SymbolRef]] = {}
        self._named: dict[str, list[SymbolRef]] = {}
        self._refs: dict[tuple[int, str], list[CallRef]] = {}
        self._spans: dict[int, list[ChunkSpan]] = {}
        self._roots = {stats.source.name: stats.source.root for stats in store.list_sources()}
        self._packages: dict[str, str] = {}
        # every file's imports, by the name they bring in and by the file a whole module is
        # (see `_imports_of`): made at the first `importers`, which `impact` asks per caller
        self._import_names: dict[str, list[tuple[int, int, CallRef]]] | None = None
        self._module_imports: dict[int, list[tuple[int, int, CallRef]]] = {}
        # A call resolves the same for every definition it is checked against: `callers` of a
        # name that 100 definitions share (10 copies of a library) read and resolved each
        # call 100 times.
        self._links: dict[str, tuple[dict[int, list[tuple[CallRef, float, str]]],
                                     list[tuple[CallRef, float, str, frozenset[int]]]]] = {}
        self._resolved: dict[tuple[int, str, str, str], Resolution] = {}
        self._callable: dict[tuple[str, str | None], list[SymbolRef]] = {}
        self._guesses: dict[tuple[str, str | None, bool, bool], Resolution] = {}

    # -- symbols ---------------------------------------------------------------------------

    def _symbol(self, row: tuple[int, int, str, str, int, int, str, int]) -> SymbolRef:
        sid, doc_id, name, kind, start, end, signature, exported = row
        source, path, language = self.files.get(doc_id, ("?", "?", None))
        return SymbolRef(sid, doc_id, source, path, language, name, kind, start, end, signature, bool(exported),
                         self.chunk_at(doc_id, start))

    def chunk_at(self, doc_id: int, line: int) -> str | None:
        """The id of the chunk holding a line of a file."""
        if doc_id not in self._spans:
            self._spans.update(self.store.chunk_spans([doc_id]))
            self._spans.setdefault(doc_id, [])
        return chunk_at(self._spans[doc_id], line)

    def symbols_in(self, doc_id: int) -> list[SymbolRef]:
        """Every definition of a file, in line order."""
        if doc_id not in self._symbols_in:
            self._symbols_in[doc_id] = [self._symbol(r) for r in self.store.symbol_rows("document_id", doc_id)]
        return self._symbols_in[doc_id]

    def named(self, short: str) -> list[SymbolRef]:
        """Every definition whose last name part is `short`."""
        if short not in self._named:
            self._named[short] = [self._symbol(r) for r in self.store.symbol_rows("short", short)]
        return self._named[short]

    def find(self, query: str, kind: str | None = None, path: str | None = None,
             limit: int = 50) -> list[tuple[str, SymbolRef]]:
        """Definitions by name: exact (qualified or last part), then prefix, then fuzzy
        (close spellings, the closest first, then substrings; case-insensitive). Returns
        (match type, symbol)."""
        started = time.perf_counter()
        found: dict[int, tuple[str, SymbolRef]] = {}
        last = query.rsplit(".", 1)[-1]
        for symbol in self._exact(query):
            found.setdefault(symbol.id, ("exact", symbol))
        like = last.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        for row in self.store.symbol_rows("short_like", like + "%"):
            found.setdefault(row[0], ("prefix", self._symbol(row)))
        close: list[str] = []
        wanted = [s for _, s in found.values() if (kind is None or s.kind == kind) and glob_match(path, s.path)]
        if len(wanted) < limit:  # fuzzy matches rank after these: look only when there is room
            # Misspellings keep about the same length: comparing only those keeps this fast.
            spellings = {s.lower() for s in self.store.symbol_shorts() if abs(len(s) - len(last)) <= 2}
            close = difflib.get_close_matches(last.lower(), spellings, n=10, cutoff=0.75)  # the closest first
            for spelling in close:
                for row in self.store.symbol_rows("short_nocase", spelling):
                    found.setdefault(row[0], ("fuzzy", self._symbol(row)))
            for row in self.store.symbol_rows("short_like", "%" + like + "%"):
                found.setdefault(row[0], ("fuzzy", self._symbol(row)))
        order = {"exact": 0, "prefix": 1, "fuzzy": 2}
        closeness = {spelling: n for n, spelling in enumerate(close)}

        def rank(match: tuple[str, SymbolRef]) -> tuple[int, int, int, str, str, int]:
            how, s = match
            near = closeness.get(s.name.rsplit(".", 1)[-1].lower(), len(close)) if how == "fuzzy" else 0
            return order[how], near, len(s.name), s.source, s.path, s.start_line

        shown = [(how, s) for how, s in sorted(found.values(), key=rank)
                 if (kind is None or s.kind == kind) and glob_match(path, s.path)][:limit]
        self._logged("symbols", {"query": query, "kind": kind, "path": path}, len(shown), started)
        return shown

    def _exact(self, query: str) -> list[SymbolRef]:
        """Definitions named exactly `query`: qualified (`Class.method`, or its tail such as
        `method` of `Outer.Class.method`), or by a bare last name part."""
        last = query.rsplit(".", 1)[-1]
        hits = {s.id: s for s in map(self._symbol, self.store.symbol_rows("name", query))}
        for s in self.named(last):
            if s.name.endswith("." + query) or query == last:
                hits.setdefault(s.id, s)
        return list(hits.values())

    def targets(self, query: str, path: str | None = None) -> list[SymbolRef]:
        """The definitions a graph question is about: `Class.method` or a bare name.

        Raises:
            NotFoundError: no definition has that name (the message suggests close ones).
        """
        hits = [s for s in self._exact(query) if glob_match(path, s.path)]
        if not hits:
            close = [s.name for _, s in self.find(query, path=path, limit=5)]
            hint = f"; did you mean {', '.join(dict.fromkeys(close))}?" if close else ""
            raise NotFoundError(f"no definition named {query!r} in the index{hint} "
                                "(see `mindex symbols find`)")
        qualified = [s for s in hits if s.name == query]
        return qualified or hits

    def outline(self, doc_id: int) -> list[SymbolRef]:
        """A file's definitions in line order (nesting is in their qualified names)."""
        return self.symbols_in(doc_id)

    def exports(self, doc_id: int) -> list[SymbolRef]:
        """What a file offers other files: its visible top-level definitions."""
        started = time.perf_counter()
        shown = [s for s in self.symbols_in(doc_id) if s.exported and "." not in s.name]
        self._logged("exports", {"path": self.files.get(doc_id, ("", "", None))[1]}, len(shown), started)
        return shown

    def _logged(self, kind: str, params: dict[str, Any], results: int, started: float) -> None:
        if self._log:
            self._log(kind, params, results, (time.perf_counter() - started) * 1000)

    def document(self, path: str, source: str | None = None) -> int:
        """The document id of a code file, by path relative to its source (or a unique suffix).

        Raises:
            NotFoundError: no such indexed file, or several.
        """
        path = path.removeprefix("./")
        found = [d for (s, p), d in self._by_path.items() if p == path and source in (None, s)]
        if not found:
            found = [d for (s, p), d in self._by_path.items() if p.endswith("/" + path) and source in (None, s)]
        if len(found) != 1:
            what = "matches several files; add --source or more of the path" if found else "is not an indexed code file"
            raise NotFoundError(f"{path!r} {what} (see `mindex grep -l` or `mindex sources`)")
        return found[0]

    # -- modules ---------------------------------------------------------------------------

    def _ending(self, suffix: str, source: str) -> list[int]:
        key = f"{source}\0{suffix}"
        if key not in self._suffix:
            self._suffix[key] = [d for (s, p), d in self._by_path.items()
                                 if s == source and (p == suffix or p.endswith("/" + suffix))]
        return self._suffix[key]

    def module_files(self, doc_id: int, module: str, name: str = "") -> list[int]:
        """The indexed files an import's module names ([] when it is outside the index)."""
        source, path, language = self.files[doc_id]
        here = posixpath.dirname(path)
        candidates: list[str] = []
        exact = False
        if language == "python":
            dots = len(module) - len(module.lstrip("."))
            rest = module[dots:].replace(".", "/")
            if dots:
                base = here
                for _ in range(dots - 1):
                    base = posixpath.dirname(base)
                stem = posixpath.join(base, rest) if rest else base
                candidates, exact = [f"{stem}.py", f"{stem}/__init__.py"], True
            else:
                return self._python_module(source, rest)
        elif language in ("javascript", "typescript", "tsx"):
            if not module.startswith("."):
                return self._aliased_module(source, module)
            stem = posixpath.normpath(posixpath.join(here, module))
            candidates = [stem] + [stem + s for s in JS_SUFFIXES] + [f"{stem}/index{s}" for s in JS_SUFFIXES]
            exact = True
        elif language == "go":
            parts = module.split("/")
            for k in range(len(parts), 0, -1):
                folder = "/".join(parts[-k:])
                found = [d for (s, p), d in self._by_path.items() if s == source and p.endswith(".go")
                         and (posixpath.dirname(p) == folder or posixpath.dirname(p).endswith("/" + folder))]
                if found:
                    return found
            return []
        elif language == "rust":
            parts = [p for p in module.split("::") if p not in ("crate", "self", "super", "")]
            if not parts:
                return []
            stem = "/".join(parts)
            candidates = [f"{stem}.rs", f"{stem}/mod.rs"]
        elif language == "java":
            stem = module.replace(".", "/")
            if name == "*":
                return [d for (s, p), d in self._by_path.items() if s == source and posixpath.dirname(p).endswith(stem)]
            candidates = [f"{stem}/{name}.java"]
        elif language in ("c", "cpp"):
            local = posixpath.normpath(posixpath.join(here, module))
            if (source, local) in self._by_path:
                return [self._by_path[(source, local)]]
            candidates = [module]
        found = []
        for candidate in candidates:
            if exact:
                if (source, candidate) in self._by_path:
                    found.append(self._by_path[(source, candidate)])
            else:
                found += self._ending(candidate, source)
        return list(dict.fromkeys(found))

    def _package(self, source: str) -> str:
        """The Python package a source's root is, when the root holds `__init__.py` (a user
        who adds `Django-5.1.4/django` indexes the package `django`): its folder's name."""
        if source not in self._packages:
            root = self._roots.get(source, "")
            # An empty __init__.py is not indexed (nothing to search), so ask the folder.
            marked = (source, "__init__.py") in self._by_path or os.path.isfile(os.path.join(root, "__init__.py"))
            self._packages[source] = posixpath.basename(root.rstrip("/")) if root and marked else ""
        return self._packages[source]

    def _python_module(self, source: str, path: str) -> list[int]:
        """Files of an absolute Python module path (`django/utils/crypto`): under the root, or
        inside the package the root is; else the longest trailing part of the path (two
        names at least) that ends an indexed file's path."""
        under_root = [self._by_path[(source, c)] for c in (f"{path}.py", f"{path}/__init__.py") if (source, c) in self._by_path]
        if under_root:
            return under_root
        package = self._package(source)
        if package and (path == package or path.startswith(package + "/")):
            inner = path[len(package) + 1 :]
            found = [self._by_path[(source, c)] for c in (f"{inner}.py", f"{inner}/__init__.py" if inner else "__init__.py")
                     if (source, c) in self._by_path]
            if found:
                return found
        parts = path.split("/")
        for start in range(len(parts) - 1):
            stem = "/".join(parts[start:])
            found = self._ending(f"{stem}.py", source) + self._ending(f"{stem}/__init__.py", source)
            if found:
                return found
        return []

    def _aliased_module(self, source: str, module: str) -> list[int]:
        """Files of a non-relative JS/TS import: a path alias (`@/lib/util`, `~/lib/util`,
        `#lib/util`, `$lib/util`) or a base-URL path (`src/lib/util`), matched against the
        ends of indexed paths; a bare package name (`react`) is outside the index."""
        alias = next((a for a in ("@/", "~/", "#", "$") if module.startswith(a)), None)
        if alias is None and (module.startswith("@") or "/" not in module):
            return []  # an npm package (`react`, `@scope/pkg`)
        stem = module[len(alias):] if alias else module
        if alias == "$":
            stem = stem.split("/", 1)[-1]  # SvelteKit's $lib/x is src/lib/x
        # A base-URL path names the root's own folder when the root is that folder (src/).
        top = posixpath.basename(self._roots.get(source, "").rstrip("/"))
        stems = [stem, stem[len(top) + 1 :]] if top and stem.startswith(top + "/") else [stem]
        found = [d for s in stems for suffix in JS_SUFFIXES
                 for d in (*self._ending(s + suffix, source), *self._ending(f"{s}/index{suffix}", source))]
        return list(dict.fromkeys(found))

    def refs(self, doc_id: int, kind: str) -> list[CallRef]:
        """A file's references of one kind (call, import, extends, implements), read once."""
        key = (doc_id, kind)
        if key not in self._refs:
            self._refs[key] = [CallRef(*r) for r in self.store.ref_rows("document_id", doc_id, kind)]
        return self._refs[key]

    def imports(self, doc_id: int) -> list[CallRef]:
        """A file's import references."""
        return self.refs(doc_id, "import")

    # -- resolution ------------------------------------------------------------------------

    def resolve(self, ref: CallRef) -> Resolution:
        """What a call reaches (see the module docstring for the rules and confidences)."""
        key = (ref.document_id, ref.name, ref.qualifier, ref.scope)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(ref)
        return self._resolved[key]

    def _resolve(self, ref: CallRef) -> Resolution:
        doc_id, name, receiver = ref.document_id, ref.name, ref.qualifier
        language = self.files.get(doc_id, ("", "", None))[2]
        family = FAMILY.get(language or "", language)
        if (name, family) not in self._callable:  # the same list for every call of the name in the language
            self._callable[(name, family)] = [s for s in self.named(name) if s.kind not in NOT_CALLABLE
                                              and FAMILY.get(s.language or "", s.language) == family]
        callable_ = self._callable[(name, family)]
        owner = ref.scope.rsplit(".", 1)[0] if "." in ref.scope else ""
        if receiver in SELF_WORDS or (not receiver and language in IMPLICIT_THIS and owner):
            mine = [s for s in callable_ if s.document_id == doc_id and s.name == f"{owner}.{name}"]
            if mine and not receiver.startswith(("super", "base")):
                return Resolution([(s, 1.0) for s in mine], "method of the enclosing class")
            for base in self._bases(doc_id, owner):
                inherited = [s for s in callable_ if s.name == f"{base}.{name}"]
                if inherited:
                    return Resolution([(s, 0.9) for s in inherited], f"inherited from {base}")
        elif not receiver:
            local = [s for s in callable_ if s.document_id == doc_id and s.name == name]
            if local:
                return Resolution([(s, 1.0) for s in local], "defined in this file")
            for imp in self.imports(doc_id):
                if imp.alias == name:
                    files = self.module_files(doc_id, imp.qualifier, imp.name)
                    reached = [s for s in callable_ if s.document_id in files and s.name == (imp.name or name)]
                    if reached:
                        return Resolution([(s, 0.95) for s in reached], f"imported from {imp.qualifier}")
                    if not files:
                        return Resolution([], f"outside the index: imported from {imp.qualifier}")
            near = self._neighbours(doc_id, language, callable_, name)
            if near:
                return near
        else:
            head = receiver.split(".")[0].split("::")[0]
            for imp in self.imports(doc_id):
                if imp.alias == head or (imp.alias and receiver == imp.qualifier):
                    module = imp.qualifier if not imp.name else f"{imp.qualifier}.{imp.name}".lstrip(".")
                    if imp.name and imp.qualifier.startswith("."):
                        module = imp.qualifier + ("" if imp.qualifier.endswith(".") else ".") + imp.name
                    files = self.module_files(doc_id, module) or self.module_files(doc_id, imp.qualifier, imp.name)
                    reached = [s for s in callable_ if s.document_id in files and "." not in s.name]
                    if reached:
                        return Resolution([(s, 0.95) for s in reached], f"{head} is imported from {imp.qualifier}")
                    if not files:
                        return Resolution([], f"outside the index: {head} is imported from {imp.qualifier}")
            member = f"{receiver.split('::')[-1].split('.')[-1]}.{name}"
            static = [s for s in callable_ if s.name == member]
            if static:
                return Resolution([(s, 0.9) for s in static], f"member of {receiver}")
        tail = receiver.rsplit("::", 1)[-1]
        guess = (name, family, bool(receiver), "::" in receiver and tail[:1].islower())
        if guess not in self._guesses:  # by name alone: the same for every such call of the name
            self._guesses[guess] = self._by_name(callable_, guess[2], name, guess[3])
        return self._guesses[guess]

    def _neighbours(self, doc_id: int, language: str | None, callable_: list[SymbolRef],
                    name: str) -> Resolution | None:
        """Go: a function of the same package (folder); C/C++: of an included header's source."""
        source, path, _ = self.files[doc_id]
        if language == "go":
            folder = posixpath.dirname(path)
            same = [s for s in callable_ if s.source == source and s.name == name
                    and posixpath.dirname(s.path) == folder and s.path.endswith(".go")]
            if same:
                return Resolution([(s, 0.9) for s in same], "same package")
        if language in ("c", "cpp"):
            stems = {posixpath.splitext(posixpath.basename(i.qualifier))[0] for i in self.imports(doc_id)}
            paired = [s for s in callable_ if s.name == name
                      and posixpath.splitext(posixpath.basename(s.path))[0] in stems]
            if paired:
                return Resolution([(s, 0.9) for s in paired], "defined with an included header")
        return None

    def _bases(self, doc_id: int, owner: str) -> list[str]:
        heritage = sorted(self.refs(doc_id, "extends") + self.refs(doc_id, "implements"), key=lambda r: r.line)
        return [r.name for r in heritage if r.scope == owner or r.scope.startswith(owner + ".")]

    @staticmethod
    def _by_name(callable_: list[SymbolRef], has_receiver: bool, name: str, module_path: bool = False) -> Resolution:
        methods = [s for s in callable_ if "." in s.name]
        plain = [s for s in callable_ if "." not in s.name]
        # obj.f() reaches a method; a plain function only through a module path (a::b::f()),
        # and module aliases were resolved through the imports before this.
        pool = (plain if module_path else methods) if has_receiver else (plain or callable_)
        if not pool:
            return Resolution([], "not defined in the index")
        if len(pool) == 1:
            return Resolution([(pool[0], 0.6)], "the only definition with this name")
        return Resolution([(s, 0.5 / len(pool)) for s in pool], f"ambiguous: {len(pool)} definitions named {name}")

    # -- questions -------------------------------------------------------------------------

    def _edge(self, ref: CallRef, target: SymbolRef | None, confidence: float, reason: str) -> Edge:
        source, path, _ = self.files.get(ref.document_id, ("?", "?", None))
        call = f"{ref.qualifier}.{ref.name}" if ref.qualifier else ref.name
        return Edge(source, path, ref.line, ref.scope, call, target, confidence, reason,
                    self.chunk_at(ref.document_id, ref.line))

    def callers(self, target: SymbolRef, min_confidence: float = 0.0) -> list[Edge]:
        """Every call that reaches `target` (at `min_confidence` or more), most certain first."""
        edges = [self._edge(ref, target, confidence, reason) for ref, confidence, reason in self.links(target)
                 if confidence >= min_confidence]
        return sorted(edges, key=lambda e: (-e.confidence, e.source, e.path, e.line))

    def links(self, target: SymbolRef) -> list[tuple[CallRef, float, str]]:
        """The calls that reach `target` as (call, confidence, reason): the calls of its name
        are resolved once for every definition that shares it. A call that could be any of
        many definitions is kept once with the set it might reach (listing it under each of
        400 `close` methods made a million entries)."""
        short = target.name.rsplit(".", 1)[-1]
        if short not in self._links:
            found: dict[int, list[tuple[CallRef, float, str]]] = {}
            fanned: list[tuple[CallRef, float, str, frozenset[int]]] = []
            for row in self.store.ref_rows("name", short, "call"):
                ref = CallRef(*row)
                if ref.document_id in self.files:
                    resolution = self.resolve(ref)
                    if len(resolution.targets) > 8:
                        fanned.append((ref, resolution.targets[0][1], resolution.reason,
                                       frozenset(s.id for s, _ in resolution.targets)))
                        continue
                    for symbol, confidence in resolution.targets:
                        found.setdefault(symbol.id, []).append((ref, confidence, resolution.reason))
            self._links[short] = (found, fanned)
        direct, many = self._links[short]
        return [*direct.get(target.id, []), *((r, c, why) for r, c, why, ids in many if target.id in ids)]

    def callees(self, target: SymbolRef) -> list[Edge]:
        """Every call made inside `target` (and functions nested in it), in line order; an
        ambiguous call gives one edge per candidate, an unresolved one an edge without target."""
        edges = []
        for ref in self.refs(target.document_id, "call"):
            if ref.scope != target.name and not ref.scope.startswith(target.name + "."):
                continue
            resolution = self.resolve(ref)
            if not resolution.targets:
                edges.append(self._edge(ref, None, 0.0, resolution.reason))
            for symbol, confidence in resolution.targets:
                edges.append(self._edge(ref, symbol, confidence, resolution.reason))
        return edges

    def calls(self, query: str, direction: str, path: str | None = None,
              min_confidence: float = DEFAULT_MIN_CONFIDENCE) -> list[Calls]:
        """Each definition `query` names, with its callers or callees (`direction`) as the
        faces show them (`shown_callers`, `shown_callees`).

        Raises:
            NotFoundError: no definition has that name.
        """
        started = time.perf_counter()
        found = []
        for target in self.targets(query, path):
            if direction == "callers":
                under = sum(1 for _, confidence, _ in self.links(target) if confidence < min_confidence)
                edges, _ = shown_callers(self.callers(target, min_confidence), min_confidence)
            else:
                edges, under = shown_callees(self.callees(target), min_confidence), 0
            found.append(Calls(target, edges, under, min_confidence))
        self._logged(direction, {"query": query, "path": path}, sum(len(c.edges) for c in found), started)
        return found

    def importers(self, target: SymbolRef) -> list[Edge]:
        """Imports that reach `target`: its name imported from its file, or its whole module
        (`import pkg.mod`, `from pkg.mod import *`), in the order of the files and their imports."""
        short = target.name.split(".")[0]
        names, modules = self._imports_of()
        found = []
        for place in names.get(short, ()):
            imp = place[2]
            if target.document_id in self.module_files(imp.document_id, imp.qualifier, imp.name) or (
                    imp.name == short and target.document_id in self.module_files(imp.document_id, imp.qualifier)):
                found.append(place)
        found += modules.get(target.document_id, ())
        return [self._edge(imp, target, 1.0, f"imports {imp.name or imp.qualifier}") for _, _, imp in sorted(
            found, key=lambda place: place[:2])]

    def _imports_of(self) -> tuple[dict[str, list[tuple[int, int, CallRef]]], dict[int, list[tuple[int, int, CallRef]]]]:
        """Every file's imports as (file's place, import's place, import): by the name or alias
        they bring in, and, for whole modules, by each file the module is. Made once: impact
        asks `importers` for every caller it finds (thousands for a test helper), and going
        through every file's imports each time took minutes on the standard library."""
        if self._import_names is None:
            self._import_names = {}
            for place, doc_id in enumerate(self.files):
                for n, imp in enumerate(self.imports(doc_id)):
                    if imp.name in ("", "*"):
                        for file in self.module_files(doc_id, imp.qualifier, imp.name):
                            self._module_imports.setdefault(file, []).append((place, n, imp))
                    else:
                        for key in {imp.name, imp.alias} - {""}:
                            self._import_names.setdefault(key, []).append((place, n, imp))
        return self._import_names, self._module_imports

    def impact(self, target: SymbolRef, depth: int = 2, min_confidence: float = 0.5) -> list[dict[str, Any]]:
        """What may break if `target` changes: callers, their callers, ... up to `depth`, and
        the files importing it, grouped by file. Edges under `min_confidence` are left out."""
        started = time.perf_counter()
        seen = {target.id}
        frontier = [target]
        rows: list[dict[str, Any]] = []
        for level in range(1, depth + 1):
            following: list[SymbolRef] = []
            for symbol in frontier:
                for edge in self.importers(symbol) if level == 1 or symbol.exported else []:
                    rows.append({"depth": level, "via": "import", "of": symbol.name, **edge.to_dict()})
                heirs = self.direct_heirs(symbol) if symbol.kind in CLASSLIKE else []
                for via, edge in [*(("call", e) for e in self.callers(symbol, min_confidence)), *heirs]:
                    if edge.confidence < min_confidence:
                        continue
                    rows.append({"depth": level, "via": via, "of": symbol.name, **edge.to_dict()})
                    caller = self.scope_symbol(edge)
                    if caller is not None and caller.id not in seen:
                        seen.add(caller.id)
                        following.append(caller)
            frontier = following
            if not frontier:
                break
        grouped: dict[tuple[str, str], dict[str, Any]] = {}
        seen_hits: set[tuple[str, str, str, int, str, str]] = set()
        for row in rows:
            # An import line is one hit, however many of the definitions it brings in were
            # reached (a module import repeated once per method of its class before).
            key = (row["source"], row["path"], row["via"], row["line"], row["call"],
                   "" if row["via"] == "import" else row["of"])
            if key in seen_hits:
                continue
            seen_hits.add(key)
            entry = grouped.setdefault((row["source"], row["path"]),
                                       {"source": row["source"], "path": row["path"], "depth": row["depth"], "hits": []})
            entry["depth"] = min(entry["depth"], row["depth"])
            entry["hits"].append({k: row[k] for k in ("depth", "via", "of", "line", "scope", "call",
                                                       "confidence", "reason", "chunk_id")})
        out = sorted(grouped.values(), key=lambda g: (g["depth"], g["source"], g["path"]))
        self._logged("impact", {"symbol": target.name, "path": target.path, "depth": depth}, len(out), started)
        return out

    # -- classes that extend or implement a definition ----------------------------------------

    def direct_heirs(self, base: SymbolRef, kinds: tuple[str, ...] = ("extends", "implements")
                     ) -> list[tuple[str, Edge]]:
        """Classes whose declaration names `base` as a base (`extends`) or an interface
        (`implements`): (kind, edge) with the heir as the edge's scope, resolved as calls are
        (same file 1.0, imported from its module 0.95, the only class of that name 0.6, one of
        n 0.5 / n)."""
        short = base.name.rsplit(".", 1)[-1]
        family = FAMILY.get(base.language or "", base.language)
        rivals = [s for s in self.named(short) if s.kind in CLASSLIKE
                  and FAMILY.get(s.language or "", s.language) == family]
        found = []
        for kind in kinds:
            for row in self.store.ref_rows("name", short, kind):
                ref = CallRef(*row)
                language = self.files.get(ref.document_id, ("", "", None))[2]
                if ref.document_id not in self.files or FAMILY.get(language or "", language) != family:
                    continue
                imported = [self.module_files(ref.document_id, imp.qualifier, imp.name)
                            for imp in self.imports(ref.document_id) if short in (imp.name, imp.alias)]
                if ref.document_id == base.document_id:
                    confidence, reason = 1.0, "defined in this file"
                elif any(base.document_id in files for files in imported):
                    confidence, reason = 0.95, f"{short} is imported from its file"
                elif any(imported) or any(s.document_id == ref.document_id for s in rivals):
                    continue  # the heir means the class of that name it imports, or its own file's
                elif len(rivals) <= 1:
                    confidence, reason = 0.6, f"the only class named {short}"
                else:
                    confidence, reason = round(0.5 / len(rivals), 3), f"ambiguous: {len(rivals)} classes named {short}"
                found.append((kind, self._edge(ref, base, confidence, reason)))
        return sorted(found, key=lambda k_e: (-k_e[1].confidence, k_e[1].source, k_e[1].path, k_e[1].line))

    def scope_symbol(self, edge: Edge) -> SymbolRef | None:
        if not edge.scope:
            return None
        doc_id = self._by_path.get((edge.source, edge.path))
        found = [s for s in self.symbols_in(doc_id) if s.name == edge.scope] if doc_id is not None else []
        return found[0] if found else None
