"""The code graph's nouns: a definition (`SymbolRef`), a call edge with its confidence and
reason, a definition's calls, how a reference resolved; and the language facts the
resolution reads."""


from __future__ import annotations

import posixpath
from dataclasses import dataclass, field, replace
from typing import Any

from mindex.languages import SCRIPTS


SELF_WORDS = {"self", "this", "cls", "Self", "super", "super()", "base"}
IMPLICIT_THIS = {"java", "groovy", "cpp", "csharp", "kotlin", "scala", "swift", "php", "ruby", "elixir", "dart", "solidity", "julia"}
NOT_CALLABLE = {"constant", "module", "impl"}
# Languages whose module's functions are named with the module (Lua's table `M.f`, Elixir's
# `MyApp.Repo.all`): an import of the module reaches them by their last part.
MODULE_TABLES = {"lua", "elixir"}
# Languages whose functions sit in a module their calls name implicitly (Elixir's `defmodule`, Julia's `module`).
MODULE_OWNERS = {"elixir", "julia"}
# Languages whose folder is a package (a PHP namespace under PSR-4): its names seen unimported.
FOLDER_PACKAGES = {"go", "java", "groovy", "kotlin", "scala", "php"}
# Languages whose class's methods may be written in several files: Swift's extensions,
# Objective-C's categories, C++'s sources beside their headers, C#'s partial classes, Rust's
# impl blocks, Ruby's reopened classes. A method there is "of the enclosing class" in any
# file that defines the class's full name, and the class's bases are those any part names.
OPEN_CLASSES = {"swift", "objc", "cpp", "csharp", "rust", "ruby"}
# Languages whose supertypes are all read as `extends` (a trait, protocol or interface is written as a
# class is): an interface's implementations are what extends it.
SUPERTYPES_ALIKE = {"scala", "swift", "solidity"}
# Languages (by FAMILY) whose capitalised plain names are classes: `Math.max()` calls a class's.
TYPE_CASED = {"python", "java", "kotlin", "scala", "swift", "js", "ruby", "php", "rust", "dart", "solidity", "ocaml"}
# Definitions other classes may extend or implement.
CLASSLIKE = {"class", "interface", "trait", "struct", "type", "protocol", "enum", "record", "abstract_class"}
# Languages that call each other's definitions directly.
FAMILY = {"groovy": "java", "javascript": "js", "typescript": "js", "tsx": "js", "vue": "js", "svelte": "js", "c": "c", "cpp": "c",
          "metal": "c", "objc": "c"}
JS_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts")


@dataclass(frozen=True)
class SymbolRef:
    """A definition in the index, with where to read it."""

    id: int
    document_id: int
    source: str
    path: str
    language: str | None
    name: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    exported: bool
    chunk_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON shape."""
        return {"name": self.name, "kind": self.kind, "source": self.source, "path": self.path,
                "language": self.language, "start_line": self.start_line, "end_line": self.end_line,
                "signature": self.signature, "exported": self.exported, "chunk_id": self.chunk_id}


@dataclass(frozen=True)
class Edge:
    """A call between two places: where it is, what it reaches, how sure we are and why."""

    source: str
    path: str
    line: int
    scope: str  # the calling definition ('' = module level)
    call: str  # as written: receiver.name
    target: SymbolRef | None  # None: unresolved
    confidence: float
    reason: str
    chunk_id: str | None = None
    lines: tuple[int, ...] = ()  # every line of this call to this target, when it is made more than once
    candidates: int = 0  # a folded ambiguous call: how many definitions it might reach

    def to_dict(self) -> dict[str, Any]:
        """JSON shape."""
        return {"source": self.source, "path": self.path, "line": self.line, "scope": self.scope or None,
                "call": self.call, "target": self.target.to_dict() if self.target else None,
                "confidence": round(self.confidence, 3), "reason": self.reason, "chunk_id": self.chunk_id,
                "lines": list(self.lines or (self.line,)), "candidates": self.candidates or None}


@dataclass(frozen=True)
class Calls:
    """A definition's callers or callees as the faces show them: at or above a confidence,
    each call once; `left_out` counts the callers under it (callees under it are folded into
    one edge per call, which says how many definitions it might reach)."""

    target: SymbolRef
    edges: list[Edge]
    left_out: int = 0
    min_confidence: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON shape."""
        return {"target": self.target.to_dict(), "edges": [e.to_dict() for e in self.edges],
                "left_out": self.left_out, "min_confidence": self.min_confidence}


def shown_callers(edges: list[Edge], min_confidence: float) -> tuple[list[Edge], int]:
    """Callers at or above `min_confidence`, each call site once; and how many were under it."""
    kept: dict[tuple[str, str, int, str], Edge] = {}
    under = 0
    for edge in edges:
        if edge.confidence < min_confidence:
            under += 1
        else:
            kept.setdefault((edge.source, edge.path, edge.line, edge.call), edge)
    return list(kept.values()), under


def shown_callees(edges: list[Edge], min_confidence: float) -> list[Edge]:
    """Callees in line order with each call to each definition once (its lines listed); a
    call whose every candidate is under `min_confidence` becomes one edge without a target
    that says how many definitions it might reach."""
    by_site: dict[tuple[int, str], list[Edge]] = {}
    for edge in edges:
        by_site.setdefault((edge.line, edge.call), []).append(edge)
    folded: list[Edge] = []
    for site in by_site.values():
        strong = [e for e in site if e.target is None or e.confidence >= min_confidence]
        if strong:
            folded.extend(strong)
        else:
            folded.append(weak(replace(site[0], confidence=max(e.confidence for e in site)), len(site), min_confidence))
    merged: dict[tuple[str, int | None, int], Edge] = {}
    for edge in folded:
        key = (edge.call, edge.target.id if edge.target else None, edge.candidates)
        first = merged.get(key)
        merged[key] = edge if first is None else replace(first, lines=(*(first.lines or (first.line,)), edge.line))
    return list(merged.values())


def weak(edge: Edge, candidates: int, min_confidence: float) -> Edge:
    """One call whose `candidates` are each under `min_confidence`, as one edge without a target."""
    return replace(edge, target=None, candidates=candidates,
                   reason=f"{edge.reason}; each under the minimum confidence {min_confidence:g}")


@dataclass
class Resolution:
    """What one reference reaches: (symbol, confidence) pairs and why; empty = unresolved."""

    targets: list[tuple[SymbolRef, float]] = field(default_factory=list)
    reason: str = "not defined in the index"


@dataclass(frozen=True)
class CallRef:
    document_id: int
    kind: str
    name: str
    qualifier: str
    alias: str
    line: int
    scope: str


def owner_of(scope: str) -> str:
    """What a call's scope sits in (`Class` of `Class.method`; '' at a file's top level): all a
    call's resolution reads of where it is, bar the class its receiver holds."""
    return scope.rsplit(".", 1)[0] if "." in scope else ""


def takes(signature: str, arity: int) -> bool:
    """Whether a definition can be called with `arity` arguments, by its signature (`f(int a,
    String... rest)`, `F(int a, int b = 0)`, `F(params int[] xs)`); True when it cannot tell."""
    opened, closed = signature.find("("), signature.rfind(")")
    if opened < 0 or closed < opened or signature.endswith("…)"):
        return True
    inner, params, depth, start = signature[opened + 1 : closed], [], 0, 0
    for at, ch in enumerate(inner):
        depth += (ch in "([{<") - (ch in ")]}>")
        if ch == "," and depth == 0:
            params.append(inner[start:at])
            start = at + 1
    params = [p.strip() for p in [*params, inner[start:]] if p.strip() not in ("", "void")]
    needed = sum("=" not in p for p in params)
    if any("..." in p or p.startswith(("params ", "vararg ")) for p in params):
        return arity >= needed - 1
    return needed <= arity <= len(params)


def fitting(symbols: list[SymbolRef], arity: str) -> list[SymbolRef]:
    """Those of `symbols` a call with `arity` arguments can reach (Java's, C#'s, Kotlin's and
    C++'s overloads); all of them when the arity is not known."""
    return [s for s in symbols if takes(s.signature, int(arity))] if arity else symbols


_SOURCE_ROOTS = {"java": (".java",), "groovy": (".groovy",), "kotlin": (".kt", ".kts"), "scala": (".scala", ".sc")}


def package_of(path: str) -> str:
    """A file's package, as a folder: a Java, Kotlin or Scala file's from its first `java/`,
    `kotlin/` or `scala/` folder on, so that `src/main/java/com/acme/` and
    `src/test/java/com/acme/` are one package."""
    folder = posixpath.dirname(path)
    root = next((f"/{name}/" for name, ends in _SOURCE_ROOTS.items() if path.endswith(ends)), "")
    _, found, inner = f"/{folder}/".partition(root) if root else ("", "", "")
    return inner.rstrip("/") if found else folder


CLOSURES = frozenset({"python", "haskell", "ocaml", *SCRIPTS})  # where a dotted name of kind function is a nested function
# Languages whose files see only their own names, their imports and a library every module
# has: a call of a name none of them gives is that library's (the builtins, the Prelude).
SEEN_NAMES = {"python": "", "haskell": " (the Prelude's, or an outside module's)",
              "ocaml": " (Stdlib's, or an opened module's outside the index)",
              "matlab": " (MATLAB's or a toolbox's; or a variable indexed, which reads the same)"}
# Families where a call of a name alone never reaches a method (no implicit `this`): there, by
# name alone, only a module-level function or class (Python's `next(it)` is the builtin, not
# some class's `next`).
FUNCTIONS_ALONE = frozenset({"python", "js", "go"})


def by_name(callable_: list[SymbolRef], has_receiver: bool, name: str, module_path: bool = False,
            functions_alone: bool = False) -> Resolution:
    """What a call reaches by its name alone, when nothing nearer resolved it; with
    `functions_alone` (`FUNCTIONS_ALONE`), a call without a receiver reaches no method."""
    # A function a function holds (Python's and JavaScript's closures: `createRetryer.resolve`)
    # is called by its name inside it, never on a receiver (`Promise.resolve()`).
    methods = [s for s in callable_ if "." in s.name and not (s.kind == "function" and s.language in CLOSURES)]
    plain = [s for s in callable_ if "." not in s.name]
    # obj.f() reaches a method; a plain function only through a module path (a::b::f()),
    # and module aliases were resolved through the imports before this.
    pool = (plain if module_path else methods) if has_receiver else plain if functions_alone else (plain or callable_)
    if not pool:
        return Resolution([], "not defined in the index")
    if len(pool) == 1:
        return Resolution([(pool[0], 0.6)], "the only definition with this name")
    return Resolution([(s, 0.5 / len(pool)) for s in pool], f"ambiguous: {len(pool)} definitions named {name}")
