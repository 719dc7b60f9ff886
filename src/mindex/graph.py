"""The code graph: symbols found by name, and calls resolved to the definitions they reach.

References are stored as written (`self.adapter.send`, `from .models import Request`); they
are resolved here, when asked, against every file in the index, so no edge goes stale when
another file changes. Resolution uses what the language lets us know, best evidence first:

1. `self.m()` / `this.m()` (and a bare call in a Java, C++, C#, Kotlin, PHP or Ruby method):
   the enclosing class's method, else an inherited one through its recorded bases (1.0 / 0.9).
2. A bare call to a name defined in the same file (1.0), or imported by name from a module
   whose file is indexed (0.95); Go's and Java's same package, C's included header (0.9).
3. `alias.f()` where `alias` is an imported module (0.95); `Type.f()` / `Type::f()` (0.9, or
   0.85 for the `f` it inherits; a capitalised `Type` that nothing in the index defines,
   `Math.max()`, reaches nothing); `x.f()` where `x` holds a class by what its function (one
   around it, or the file's top level, or a Java class's fields) says of it, `x: Type`,
   `x = Type(...)` or `x = g()` where `g` says it returns a `Type`, and `self.x` / `this.x` as
   its class gives it (`mindex.graph_holds`): `Type.f` (0.9), else the `f` it inherits
   (0.85), no surer than `g()` is reached; unresolved when no definition has the class's name.
4. Otherwise by name alone: the only definition with that name (0.6), or every one of
   several, each marked ambiguous (0.5 / n); code that is no test never reaches a test's
   definition so. Nothing is guessed silently: each edge says how it was resolved, and
   calls into code outside the index are reported as unresolved.
"""

from __future__ import annotations

import posixpath
import time
from dataclasses import replace
from collections.abc import Callable, Iterable
from typing import Any

from mindex.errors import NotFoundError
from mindex.graph_find import Row, ranked_rows
from mindex.graph_holds import HOLDS_KINDS, Holds, outside
from mindex.graph_modules import INCLUDED_WHOLE, ModuleMap, included_stems, included_together, imports_by_name, module_rows, reexported, file_stem, spellings
from mindex.modes import DEFAULT_MIN_CONFIDENCE
from mindex.pathglob import glob_match
from mindex.store.base import ChunkSpan, Store, chunk_at
from mindex.testfiles import is_test_path
from mindex.graph_types import CLOSURES, FUNCTIONS_ALONE, Calls, Edge, FAMILY, IMPLICIT_THIS, NOT_CALLABLE, OPEN_CLASSES, Resolution, SELF_WORDS, TYPE_CASED, FOLDER_PACKAGES, MODULE_OWNERS, MODULE_TABLES, SEEN_NAMES, SymbolRef, CallRef, by_name, fitting, owner_of, package_of, shown_callees, shown_callers, weak

Link = tuple[CallRef, float, str]  # a call that reaches a definition, how surely, why


class CodeGraph:
    """Queries over the stored symbols and references of every code source."""

    def __init__(self, store: Store, log: Callable[[str, dict[str, Any], int, float], None] | None = None) -> None:
        self.store = store
        self._log = log  # the query log (agents.query_log): kind, parameters, results, ms
        self.files = {doc_id: (source, path, language) for doc_id, source, path, language in store.code_files()}
        self.modules = ModuleMap(self.files, {stats.source.name: stats.source.root for stats in store.list_sources()},
                                 store.code_text)
        self._by_path = self.modules.by_path
        self._symbols_in: dict[int, list[SymbolRef]] = {}
        self._named: dict[str, list[SymbolRef]] = {}
        self._named_rows: dict[str, list[Row]] = {}
        self._refs: dict[tuple[int, str], list[CallRef]] = {}
        self._spans: dict[int, list[ChunkSpan]] = {}
        # every file's imports by name and by module file (`_imports_of`), made at the first `importers`
        self._import_names: dict[str, list[tuple[int, int, CallRef]]] | None = None
        self._module_imports: dict[int, list[tuple[int, int, CallRef]]] = {}
        # a call resolves once for every definition sharing its name (see `links`)
        self._links: dict[str, tuple[dict[int, list[Link]], dict[frozenset[int], list[Link]]]] = {}
        self._stems: dict[int, set[str]] = {}  # each C file's included headers' stems, theirs too
        self._together: dict[int, set[int]] | None = None  # what each file included whole shares names with
        self._bases: dict[tuple[int, str], list[str]] = {}  # (file, class): the bases it names
        self._ancestry: dict[tuple[int, str], list[str]] = {}  # (file, class): its bases three levels up
        self._resolved: dict[tuple[int, str, str, str, tuple[str, float] | None, str], Resolution] = {}
        self._holds = Holds(self)  # what a name holds where a call is made on it
        self._callable: dict[tuple[str, str | None], tuple[list[SymbolRef], dict[str, list[SymbolRef]]]] = {}
        self._guesses: dict[tuple[str, str | None, bool, bool, bool], Resolution] = {}

    # -- symbols ---------------------------------------------------------------------------

    def _symbol(self, row: Row, located: bool = True) -> SymbolRef:
        sid, doc_id, name, kind, start, end, signature, exported = row
        source, path, language = self.files.get(doc_id, ("?", "?", None))
        return SymbolRef(sid, doc_id, source, path, language, name, kind, start, end, signature, bool(exported),
                         self.chunk_at(doc_id, start) if located else None)

    def _located(self, symbol: SymbolRef) -> SymbolRef:
        """`symbol` with its chunk: definitions met while resolving calls get theirs only when
        an edge shows them (reading the chunks of every file defining `get` took 0.1 s)."""
        if symbol.chunk_id is None:
            if (chunk := self.chunk_at(symbol.document_id, symbol.start_line)) is not None:
                return replace(symbol, chunk_id=chunk)
        return symbol

    def _symbols(self, rows: list[Row]) -> list[SymbolRef]:
        """Symbols of many rows, the chunk lines of their files read in one query, not one a file."""
        self._spans_of({row[1] for row in rows})
        return [self._symbol(row) for row in rows]

    def _spans_of(self, doc_ids: set[int]) -> None:
        if missing := [d for d in doc_ids if d not in self._spans]:
            found = self.store.chunk_spans(missing)
            self._spans.update({doc_id: found.get(doc_id, []) for doc_id in missing})

    def chunk_at(self, doc_id: int, line: int) -> str | None:
        """The id of the chunk holding a line of a file."""
        if doc_id not in self._spans:
            self._spans_of({doc_id})
        return chunk_at(self._spans[doc_id], line)

    def symbols_in(self, doc_id: int) -> list[SymbolRef]:
        """Every definition of a file, in line order."""
        if doc_id not in self._symbols_in:
            self._symbols_in[doc_id] = self._symbols(self.store.symbol_rows("document_id", doc_id))
        return self._symbols_in[doc_id]

    def named(self, short: str) -> list[SymbolRef]:
        """Every definition whose last name part is `short` (without its chunk: see `_located`)."""
        if short not in self._named:
            self._named[short] = [self._symbol(row, located=False) for row in self._rows_named(short)]
        return self._named[short]

    def _rows_named(self, short: str) -> list[Row]:
        if short not in self._named_rows:
            self._named_rows[short] = self.store.symbol_rows("short", short)
        return self._named_rows[short]

    def find(self, query: str, kind: str | None = None, path: str | None = None,
             limit: int = 50) -> list[tuple[str, SymbolRef]]:
        """Definitions by name, exact then prefix then fuzzy (`graph_find.ranked_rows`): (match
        type, symbol)."""
        started = time.perf_counter()
        shown = ranked_rows(self.store, self.files, self._exact_rows(query), query, kind, path, limit)
        symbols = self._symbols([row for _, row in shown])
        self.logged("symbols", {"query": query, "kind": kind, "path": path}, len(shown), started)
        return [(how, symbol) for (how, _), symbol in zip(shown, symbols)]

    def _exact_rows(self, query: str) -> list[Row]:
        """Definitions named exactly `query`: qualified (`Class.method`, or its tail such as
        `method` of `Outer.Class.method`), or by a bare last name part. `Type::method`, as Rust,
        C++ and PHP write it, finds `Type.method`, and `Class.method` finds the `Class::method`
        a C++ file defines outside its class."""
        rows = self._rows_spelled(query)
        if not rows and "::" in query:
            rows = self._rows_spelled(query.replace("::", "."))
        elif not rows and "." in query:
            rows = self._rows_spelled(query.replace(".", "::"))
        return rows or module_rows(query.replace("::", "."), self.modules, self.offers, self._rows_spelled)

    def _rows_spelled(self, query: str) -> list[Row]:
        """Definitions named exactly `query`, as `_exact_rows` spells it."""
        last = query.rsplit(".", 1)[-1]
        hits = {row[0]: row for row in self.store.symbol_rows("name", query)}
        for row in self._rows_named(last):
            if row[2].endswith("." + query) or query == last:
                hits.setdefault(row[0], row)
        return list(hits.values())

    def targets(self, query: str, path: str | None = None) -> list[SymbolRef]:
        """The definitions a graph question is about: `Class.method` or a bare name.

        Raises:
            NotFoundError: no definition has that name (the message suggests close ones).
        """
        hits = [s for s in self._symbols(self._exact_rows(query)) if glob_match(path, s.path)]
        if not hits:
            close = [s.name for _, s in self.find(query, path=path, limit=5)]
            hint = f"; did you mean {', '.join(dict.fromkeys(close))}?" if close else ""
            if self.store.bulk_loading():
                hint += ("; a first index is still being written, and the names its files define and call "
                         "are added when it ends")
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
        self.logged("exports", {"path": self.files.get(doc_id, ("", "", None))[1]}, len(shown), started)
        return shown

    def logged(self, kind: str, params: dict[str, Any], results: int, started: float) -> None:
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

    def module_files(self, doc_id: int, module: str, name: str = "") -> list[int]:
        """The indexed files an import's module names ([] when it is outside the index)."""
        return self.modules.module_files(doc_id, module, name)

    def refs(self, doc_id: int, kind: str) -> list[CallRef]:
        """A file's references of one kind (call, import, extends, implements, and what names
        hold: type, result, same, returns, item), read once; the kinds of what names hold in one
        read (a file's packed row is decoded whole for any kind)."""
        key = (doc_id, kind)
        if key not in self._refs:
            if kind in HOLDS_KINDS:
                held: dict[str, list[CallRef]] = {k: [] for k in HOLDS_KINDS}
                for row in self.store.ref_rows("document_id", doc_id, HOLDS_KINDS):
                    held[row[1]].append(CallRef(*row))
                self._refs.update({(doc_id, k): found for k, found in held.items()})
            else:
                self._refs[key] = [CallRef(*r) for r in self.store.ref_rows("document_id", doc_id, kind)]
        return self._refs[key]

    def imports(self, doc_id: int) -> list[CallRef]:
        """A file's import references."""
        return self.refs(doc_id, "import")

    def offers(self, doc_id: int) -> list[CallRef]:
        """What a file hands on under a name: its imports, and the names it binds to another
        (`alias` references: `s = attributes = attrs`)."""
        return [*self.imports(doc_id), *self.refs(doc_id, "alias")]

    # -- resolution ------------------------------------------------------------------------

    def resolve(self, ref: CallRef) -> Resolution:
        """What a call reaches (see the module docstring for the rules and confidences)."""
        # the same for every call alike in a class (or at a file's top level): only the owner
        # counts, and the class its receiver holds there
        bound = self._holds.bound(ref)
        # a call of a name alone in Python or JavaScript may reach a function of its own function
        language = self.files.get(ref.document_id, ("", "", None))[2]
        nested = not ref.qualifier and language in CLOSURES
        key = (ref.document_id, ref.name, ref.qualifier, ref.scope if nested else self._owner(ref, language), bound, ref.alias)
        if key not in self._resolved:
            found = self._resolve(ref, bound)
            fit = fitting([s for s, _ in found.targets], ref.alias)  # the overloads the arguments fit, if any
            self._resolved[key] = Resolution([t for t in found.targets if t[0] in fit], found.reason) if fit else found
        return self._resolved[key]

    def _resolve(self, ref: CallRef, bound: tuple[str, float] | None = None) -> Resolution:
        doc_id, name, receiver = ref.document_id, ref.name, ref.qualifier
        language = self.files.get(doc_id, ("", "", None))[2]
        family = FAMILY.get(language or "", language)
        if (name, family) not in self._callable:  # the same lists for every call of the name in the language
            listed = [s for s in self.named(name) if s.kind not in NOT_CALLABLE
                      and FAMILY.get(s.language or "", s.language) == family]
            spelled: dict[str, list[SymbolRef]] = {}
            for symbol in listed:
                spelled.setdefault(symbol.name, []).append(symbol)
            self._callable[(name, family)] = listed, spelled
        callable_, named = self._callable[(name, family)]
        owner = self._owner(ref, language)
        if receiver in SELF_WORDS or (not receiver and language in IMPLICIT_THIS and owner):
            own = f"{owner}.{name}" if owner or language != "perl" else name  # Perl's subs are named bare
            mine = [] if receiver.startswith(("super", "base")) else [
                s for s in named.get(own, ()) if s.document_id == doc_id] or [
                s for s in named.get(own, ()) if language in OPEN_CLASSES and s.source == self.files[doc_id][0]]
            inherited = [([s for full, defs in named.items() if full == f"{base}.{name}" or full.endswith(f".{base}.{name}")
                           for s in defs], 0.9, f"inherited from {base}")  # `kit.Downloader.log` of C++'s `kit::Downloader`
                         for base in self.ancestors(doc_id, owner)]
            outer = [([s for s in named.get(f"{cls}.{name}", ()) if s.document_id == doc_id], 0.95,
                      f"member of the outer class {cls}") for cls in self._outer_classes(doc_id, owner) if not receiver]
            whose = "function of the enclosing module" if language in MODULE_OWNERS else "method of the enclosing class"
            found = [(held, surely, why) for held, surely, why in [(mine, 1.0, whose), *inherited, *outer] if held]
            if found:  # the nearest whose parameters take the call's arguments (overloads), else the nearest
                held, surely, why = next((f for f in found if fitting(f[0], ref.alias)), found[0])
                return Resolution([(s, surely) for s in fitting(held, ref.alias) or held], why)
        if not receiver:  # also no method of a Java or C++ class: `new JsonIOException(e)`, `free(p)`
            if language in CLOSURES and (nested := self._closure(ref, named)):  # a function's own function
                return Resolution([(s, 1.0) for s in nested], "defined in this file")
            if local := [s for s in named.get(name, ()) if s.document_id == doc_id]:
                return Resolution([(s, 1.0) for s in local], "defined in this file")
            passed: Resolution | None = None  # a module that imports it: only if none defines it (`import *`)
            for imp in self._visible(doc_id, language):
                if imp.scope and ref.scope != imp.scope and not ref.scope.startswith(imp.scope + "."):
                    continue  # imported inside another function (click's `from x import raw_terminal as f`)
                if imp.alias == name or imp.name == "*":  # `from m import *` may bring it
                    files = self.module_files(doc_id, imp.qualifier, imp.name)
                    real = name if imp.name == "*" else imp.name or name
                    reached = self._defined((doc, real) for doc in files)  # `real`: imported `as` another name
                    if not reached and (holder := imp.qualifier.rpartition(".")[2])[:1].isupper():
                        # Scala's `import a.Effects._` or `a.Effects.helper`: an object's members;
                        # Java's `import static a.Util.f` (or `a.Util.*`): a class's, in its file
                        files = files or self.module_files(doc_id, imp.qualifier.rpartition(".")[0], holder)
                        reached = [s for s in self.named(real) if s.document_id in files and s.name == f"{holder}.{real}"
                                   and s.kind not in NOT_CALLABLE]
                    if reached:
                        return Resolution([(s, 0.95) for s in reached], f"imported from {imp.qualifier}")
                    if passed is None and (offered := self._offered(files, real)):
                        passed = Resolution([(s, 0.9) for s in offered], f"imported from {imp.qualifier}, which imports it")
                    if not files and imp.name != "*":
                        return passed or Resolution([], f"outside the index: imported from {imp.qualifier}")
            if passed:
                return passed
            if near := self._neighbours(doc_id, language, callable_, name):
                return near
        elif receiver not in SELF_WORDS:
            if bound is not None and outside(bound[0]):
                return Resolution([], f"outside the index: {receiver} holds what {bound[0]} returns" if receiver.isidentifier()
                                  else f"outside the index: called on what {bound[0]} returns")
            if bound is not None and (typed := self._holds.typed(*bound, name, receiver, named, ref.alias)) is not None:
                return typed
            if bound is not None and bound[1] >= 0.9 and not self.named(bound[0]):
                return Resolution([], f"outside the index: {receiver} is a {bound[0]}")
            head = receiver if language == "perl" else receiver.split(".")[0].split("::")[0]  # Perl's `A::B::f()`: A::B
            for imp in self._visible(doc_id, language):
                if imp.alias == head or (imp.alias and receiver == imp.qualifier):
                    module = imp.qualifier if not imp.name else f"{imp.qualifier}.{imp.name}".lstrip(".")
                    if imp.name and imp.qualifier.startswith("."):
                        module = imp.qualifier + ("" if imp.qualifier.endswith(".") else ".") + imp.name
                    files = self.module_files(doc_id, module) or self.module_files(doc_id, imp.qualifier, imp.name)
                    reached = [s for s in callable_ if s.document_id in files and ("." not in s.name or language in MODULE_TABLES)]
                    if reached:
                        return Resolution([(s, 0.95) for s in reached], f"{head} is imported" + (
                            f" from {imp.qualifier}" if head != imp.qualifier else ""))  # Perl's `use A::B`: A::B
                    if (offered := self._offered(files, name)):
                        return Resolution([(s, 0.9) for s in offered], f"{head} is imported from {imp.qualifier}, which imports it")
                    if receiver == head and (members := [s for s in named.get(f"{imp.name}.{name}", ()) if s.document_id in files]):
                        return Resolution([(s, 0.95) for s in members], f"member of {head}, imported from {imp.qualifier}")
                    if not files:
                        return Resolution([], f"outside the index: {head} is imported from {imp.qualifier}")
            if language == "ocaml" and bound is None and (unit := self._unit(doc_id, receiver, name)) is not None:
                return unit  # every module of the index is seen without an import
            if language == "rust" and bound is None and receiver[:1].islower() and receiver not in SELF_WORDS:
                if (in_crate := self._rust_module(doc_id, receiver, name, callable_)) is not None:
                    return in_crate
            written = receiver.split('::')[-1].split('.')[-1]  # `Type` of `Type.f()`
            written_as = named.get(f"{written}.{name}") or named.get(f"{receiver}.{name}", [])  # or Elixir's `Plug.Conn.f()`
            static = [s for s in written_as if s.document_id == doc_id] or written_as
            if static:
                return Resolution([(s, 0.9) for s in static], f"member of {receiver}")
            if written[:1].isupper() and (heir := self._holds.typed(written, 0.9, name, receiver, named)) is not None:
                return heir  # `Prompt.ask()`, `ask` being PromptBase's
            if written == receiver and written.isidentifier() and written[:1].isupper() and family in TYPE_CASED and not self.named(written):
                return Resolution([], f"outside the index: nothing here defines {written}")  # `Math.max()`
        if not receiver and family in SEEN_NAMES and callable_ and not self.files[doc_id][1].endswith(".ipynb"):
            # Python sees its file's names, its imports and the builtins (a notebook's kernel more:
            # `%run`, other cells); Haskell, OCaml and MATLAB likewise (`SEEN_NAMES`)
            return Resolution([], "not defined in this file or imported" + SEEN_NAMES[family])
        tail = receiver.rsplit("::", 1)[-1]
        # `a::b::f()` names a module's function; `WalkDir::new(x).into_iter().f()` calls a method
        path = "::" in receiver and tail[:1].islower() and not any(c in receiver for c in "(.")
        guess = (name, family, bool(receiver), path, is_test_path(self.files[doc_id][1]))
        if guess not in self._guesses:  # by name alone, the same for every such call; code never calls its tests
            pool = callable_ if guess[4] else [s for s in callable_ if not is_test_path(s.path)]
            self._guesses[guess] = by_name(pool, guess[2], name, guess[3], family in FUNCTIONS_ALONE)
        return self._guesses[guess]

    def _owner(self, ref: CallRef, language: str | None) -> str:
        """The class a call is made in: its scope's owner (`Class` of `Class.method`), or, where
        a class calls its methods without `this`, the class whose body the call is in (a
        field's initializer: gson's `INSTANCE = create()`)."""
        if language in IMPLICIT_THIS and ref.scope in self._holds.classes(ref.document_id):
            return ref.scope
        owner = owner_of(ref.scope)  # Julia's `function Base.show(...)`: Base is no module of the file's
        return owner if language != "julia" or any(s.kind == "module" and s.document_id == ref.document_id
                                                   for s in self.named(owner.rpartition(".")[2])) else ""

    def _outer_classes(self, doc_id: int, owner: str) -> list[str]:
        """The classes a nested class sits in, nearest first (their methods are called without
        `this` from it in Java and its kind: jsoup's `EscapeMode(...) { load(...); }`)."""
        classes, outer, found = self._holds.classes(doc_id), owner_of(owner), []
        while outer and outer in classes:
            found.append(outer)
            outer = owner_of(outer)
        return found

    def _closure(self, ref: CallRef, named: dict[str, list[SymbolRef]]) -> list[SymbolRef]:
        """A Python or JavaScript function or class defined in the function around the call, or
        in one around that, which a call of its name alone reaches (`outer.helper` for
        `helper()`, a test's own `class C` for `C()`); not a class's member (a method does not
        see its class's names)."""
        scope = ref.scope
        while scope:
            found = [s for s in named.get(f"{scope}.{ref.name}", ())
                     if s.document_id == ref.document_id and s.kind in ("function", "class")]
            if found and any(s.document_id == ref.document_id and s.name == scope and s.kind in ("function", "method")
                             for s in self.named(scope.rpartition(".")[2])):
                return found
            scope = owner_of(scope)
        return []

    def _offered(self, files: list[int], name: str) -> list[SymbolRef]:
        """Top-level definitions that `files` import as `name` and so offer (`reexported`)."""
        return self._defined(reexported(self.offers, self.modules.module_files, files, name))

    def _defined(self, places: Iterable[tuple[int, str]]) -> list[SymbolRef]:
        """The top-level callable definitions of each (file, name)."""
        return [s for doc, real in places for s in self.named(real)
                if s.document_id == doc and s.name == real and s.kind not in NOT_CALLABLE]

    def _rust_module(self, doc_id: int, receiver: str, name: str, callable_: list[SymbolRef]) -> Resolution | None:
        """Rust: `eval::f()`, `eval` a module of the crate (`mod eval;`): an `f` of a file `rust_module_files` gives."""
        places = self.modules.rust_module_files(doc_id, receiver)
        source = self.files[doc_id][0]
        found = [s for s in callable_ if s.source == source and s.path in places and s.name == name]
        return Resolution([(s, 0.9) for s in found], f"{receiver} is a module of this crate ({found[0].path})") if found else None

    def _unit(self, doc_id: int, receiver: str, name: str) -> Resolution | None:
        """OCaml: `Uri.to_string u` reaches the `to_string` of the index's `uri.ml`."""
        found = self._defined((doc, name) for doc in self.module_files(doc_id, receiver))
        return Resolution([(s, 0.9) for s in found], f"{receiver} is {found[0].path}") if found else None

    def included(self, doc_id: int) -> set[str]:
        """The stems of the headers a C, C++ or Objective-C file includes, and theirs."""
        return included_stems(doc_id, self.imports, self.module_files, self._stems)

    def _neighbours(self, doc_id: int, language: str | None, callable_: list[SymbolRef],
                    name: str) -> Resolution | None:
        """Go: a function of the same package (folder), Java, Kotlin, PHP: a class (`new Foo()`); MATLAB:
        `f.m`'s; Julia, PowerShell: of a file included by the same file; C/C++, Objective-C: of an
        included header's source."""
        source, path, _ = self.files[doc_id]
        if language in FOLDER_PACKAGES:
            jvm = language in ("java", "groovy")  # a Groovy test of a Java class, in one package
            here, suffix = package_of(path), (".java", ".groovy") if jvm else posixpath.splitext(path)[1]
            if same := [s for s in callable_ if s.source == source and s.name == name
                        and s.path.endswith(suffix) and package_of(s.path) == here]:
                return Resolution([(s, 0.9) for s in same], "same package")
        if language == "matlab" and (own := [s for s in callable_ if s.name == name and (  # a function file's, on the path
                s.path.endswith(f"/{name}.m") or s.path == f"{name}.m")]):
            return Resolution([(s, 0.9) for s in own], f"the function of {own[0].path}")
        if language in INCLUDED_WHOLE:  # a function of a file included by the same file
            together = self._companions(doc_id)
            if near := [s for s in callable_ if s.document_id in together and (s.name == name or (  # Julia: `Kit.f` of
                    language == "julia" and any(m.kind == "module" for m in self.named(owner_of(s.name)))))]:  # `module Kit`
                return Resolution([(s, 0.9) for s in near], f"defined in {near[0].path}, included with this file")
        if language in ("c", "cpp", "objc"):
            stems = self.included(doc_id)
            paired = [s for s in callable_ if s.name == name and file_stem(s.path) in stems]
            return Resolution([(s, 0.9) for s in paired], "defined with an included header") if paired else None
        return None

    def _companions(self, doc_id: int) -> set[int]:
        """The files that share a file's names by including it whole, or along with it."""
        if self._together is None:
            self._together = included_together(self.files, self.imports, self.modules.module_files)
        return self._together.get(doc_id, set())

    def _visible(self, doc_id: int, language: str | None) -> list[CallRef]:
        """A file's imports; for a file included whole, also those of the files sharing its
        names (test/basics.jl sees the `using CSV` of the runtests.jl that includes it)."""
        return self.imports(doc_id) if language not in INCLUDED_WHOLE else [*self.imports(doc_id), *(
            CallRef(imp.document_id, imp.kind, imp.name, imp.qualifier, imp.alias, imp.line, "")
            for other in sorted(self._companions(doc_id)) for imp in self.imports(other)
            if not imp.qualifier.lower().endswith((".jl", ".ps1")))]

    def ancestors(self, doc_id: int, owner: str) -> list[str]:
        """The classes a class of a file inherits from, nearest first, three levels up at most
        (jsoup's `TextNode` extends `LeafNode`, which extends `Node`: `outerHtml()` in a
        TextNode is Node's)."""
        if (doc_id, owner) not in self._ancestry:
            level = self.bases(doc_id, owner)
            seen, found = {owner, *level}, list(level)
            for _ in range(2):
                above = [base for name in level for cls in self._holds.classes_named(name)
                         for base in self.bases(cls.document_id, cls.name)]
                level = [base for base in dict.fromkeys(above) if base not in seen]
                seen.update(level)
                found += level
            self._ancestry[(doc_id, owner)] = found
        return self._ancestry[(doc_id, owner)]

    def bases(self, doc_id: int, owner: str) -> list[str]:
        """The classes a class of a file extends or implements, as recorded, in line order; when
        the file names none and the class is open (`OPEN_CLASSES`), those another file that
        defines it names (`Fetcher.m`'s methods inherit through the `@interface Fetcher :
        Downloader` of `Fetcher.h`; a C# partial class through another part)."""
        if (doc_id, owner) not in self._bases:
            self._bases[(doc_id, owner)] = self._bases_of(doc_id, owner)
        return self._bases[(doc_id, owner)]

    def _bases_of(self, doc_id: int, owner: str) -> list[str]:
        def of(doc: int) -> list[str]:  # a base imported under another name as the name its file imports
            renamed = {imp.alias: imp.name for imp in self.imports(doc) if imp.name not in ("", "*", imp.alias)}
            heritage = sorted(self.refs(doc, "extends") + self.refs(doc, "implements"), key=lambda r: r.line)
            return [renamed.get(r.name, r.name) for r in heritage if r.scope == owner or r.scope.startswith(owner + ".")]

        source, _, language = self.files[doc_id]
        if (found := of(doc_id)) or language not in OPEN_CLASSES:
            return found
        others = sorted({s.document_id for s in self.named(owner.rpartition(".")[2])
                         if s.name == owner and s.source == source and s.document_id != doc_id})
        return next((found for doc in others if (found := of(doc))), [])

    # -- questions -------------------------------------------------------------------------

    def edge(self, ref: CallRef, target: SymbolRef | None, confidence: float, reason: str) -> Edge:
        """The edge a reference makes to a target (None: unresolved), as callers and callees list it."""
        source, path, _ = self.files.get(ref.document_id, ("?", "?", None))
        call = f"{ref.qualifier}.{ref.name}" if ref.qualifier else ref.name
        return Edge(source, path, ref.line, ref.scope, call, target and self._located(target), confidence, reason,
                    self.chunk_at(ref.document_id, ref.line))

    def callers(self, target: SymbolRef, min_confidence: float = 0.0) -> list[Edge]:
        """Every call that reaches `target` (at `min_confidence` or more), most certain first."""
        edges = [self.edge(ref, target, confidence, reason) for ref, confidence, reason in self.links(target)
                 if confidence >= min_confidence]
        return sorted(edges, key=lambda e: (-e.confidence, e.source, e.path, e.line))

    def links(self, target: SymbolRef) -> list[Link]:
        """The calls that reach `target` as (call, confidence, reason): the calls of its name
        are resolved once for every definition that shares it. A call that could be any of
        many definitions is kept once under the set it might reach (listing it under each of
        400 `close` methods made a million entries; most such calls share one set)."""
        short = target.name.rsplit(".", 1)[-1]
        if short not in self._links:
            found: dict[int, list[Link]] = {}
            fanned: dict[frozenset[int], list[Link]] = {}
            sets: dict[int, frozenset[int]] = {}  # resolutions are shared: a set made once for each
            for row in (row for name in spellings(self.store, short) for row in self.store.ref_rows("name", name, "call")):
                ref = CallRef(*row)
                if ref.document_id in self.files:
                    resolution = self.resolve(ref)
                    if len(resolution.targets) > 8:
                        if (ids := sets.get(id(resolution))) is None:
                            ids = sets[id(resolution)] = frozenset(s.id for s, _ in resolution.targets)
                        fanned.setdefault(ids, []).append((ref, resolution.targets[0][1], resolution.reason))
                        continue
                    for symbol, confidence in resolution.targets:
                        found.setdefault(symbol.id, []).append((ref, confidence, resolution.reason))
            self._links[short] = (found, fanned)
        direct, many = self._links[short]
        return [*direct.get(target.id, []), *(link for ids, links in many.items() if target.id in ids for link in links)]

    def callees(self, target: SymbolRef, min_confidence: float = 0.0) -> list[Edge]:
        """Every call made inside `target` (and functions nested in it), in line order; an
        ambiguous call gives one edge per candidate, an unresolved one an edge without target,
        and one whose every candidate is under `min_confidence` one edge that counts them."""
        edges = []
        for ref in self.refs(target.document_id, "call"):
            if ref.scope != target.name and not ref.scope.startswith(target.name + "."):
                continue
            resolution = self.resolve(ref)
            if not resolution.targets:
                edges.append(self.edge(ref, None, 0.0, resolution.reason))
            elif (best := max(c for _, c in resolution.targets)) < min_confidence:
                edges.append(weak(self.edge(ref, None, best, resolution.reason), len(resolution.targets),
                                  min_confidence))
                continue
            for symbol, confidence in resolution.targets:
                edges.append(self.edge(ref, symbol, confidence, resolution.reason))
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
                edges, under = shown_callees(self.callees(target, min_confidence), min_confidence), 0
            found.append(Calls(target, edges, under, min_confidence))
        self.logged(direction, {"query": query, "path": path}, sum(len(c.edges) for c in found), started)
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
        return [self.edge(imp, target, 1.0, f"imports {imp.name or imp.qualifier}") for _, _, imp in sorted(
            found, key=lambda place: place[:2])]

    def _imports_of(self) -> tuple[dict[str, list[tuple[int, int, CallRef]]], dict[int, list[tuple[int, int, CallRef]]]]:
        """Every file's imports by the name they bring in and by module file (`imports_by_name`), made once."""
        if self._import_names is None:
            self._import_names, self._module_imports = imports_by_name(self.files, self.imports, self.module_files)
        return self._import_names, self._module_imports

    def scope_symbol(self, edge: Edge) -> SymbolRef | None:
        if not edge.scope:
            return None
        doc_id = self._by_path.get((edge.source, edge.path))
        found = [s for s in self.symbols_in(doc_id) if s.name == edge.scope] if doc_id is not None else []
        return found[0] if found else None
