"""The house keeps its shape: no import circles, layers that point one way, no room over
600 lines, and operation declarations that import nothing of the engine.

Imports are read from the source with `ast`: every import counts, at the top of a module,
inside a function (the lazy ones) or under `TYPE_CHECKING`, because each is a dependency a
reader must hold in mind. The layers, top first, are those docs/architecture.md draws."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
MAX_LINES = 600

# Top first: a module may import its own layer and those below, never one above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("faces", ("mindex.serve", "mindex.__main__", "mindex.agents")),
    ("operations", ("mindex.ops",)),
    ("facade", ("mindex", "mindex.index", "mindex.watch")),
    ("products", ("mindex.research", "mindex.memory.book", "mindex.memory.ranking", "mindex.memory.contextmd", "mindex.memory.when",
                  "mindex.changelog.book", "mindex.changelog.fetch", "mindex.changelog.synergies")),
    ("engine", ("mindex.engine", "mindex.embedding", "mindex.search", "mindex.rank", "mindex.graph",
                "mindex.graph_find", "mindex.graph_heirs", "mindex.graph_holds", "mindex.graph_modules",
                "mindex.graph_types", "mindex.grep", "mindex.grep_scan", "mindex.ingest", "mindex.vectors", "mindex.copy",
                "mindex.evaluate", "mindex.testfiles", "mindex.querylog", "mindex.rerank", "mindex.locate")),
    ("stages", ("mindex.sources", "mindex.parse", "mindex.chunk", "mindex.embed", "mindex.fetch",
                "mindex.changelog", "mindex.memory")),
    ("store", ("mindex.store",)),
    ("nouns", ("mindex.models", "mindex.config", "mindex.errors", "mindex.terms", "mindex.languages",
               "mindex.registry", "mindex.modes", "mindex.pathglob", "mindex.textsafe", "mindex.logs",
               "mindex.roots")),
)


def modules() -> dict[str, Path]:
    found = {}
    for path in (SRC / "mindex").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The mindex modules `name` imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names)
    return {m for m in found if m in known and m != name}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def layer_of(module: str) -> int:
    """The index of the module's layer: its longest matching prefix decides."""
    best, depth = -1, -1
    for n, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > depth:
                best, depth = n, len(prefix)
    return best


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_through_others() -> None:
    assert cycles(graph()) == []


def test_the_cycle_check_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_module_has_a_layer_and_imports_only_its_own_or_lower_ones() -> None:
    edges = graph()
    assert [m for m in edges if layer_of(m) < 0] == []
    upward = [f"{m} ({LAYERS[layer_of(m)][0]}) imports {d} ({LAYERS[layer_of(d)][0]})"
              for m, deps in sorted(edges.items()) for d in sorted(deps) if layer_of(d) < layer_of(m)]
    assert upward == []


def test_the_engine_never_imports_the_products_built_on_it() -> None:
    edges = graph()
    engine = [m for m in edges if LAYERS[layer_of(m)][0] in ("engine", "stages", "store", "nouns")]
    products = {"mindex.index", "mindex.memory.book", "mindex.changelog.book"}
    assert [(m, sorted(edges[m] & products)) for m in engine if edges[m] & products] == []


def test_declarations_import_nothing_of_the_engine() -> None:
    """What `mindex.ops` modules import when they load (not in a function, not for types):
    the operations package and the nouns only."""
    for name, path in modules().items():
        if not (name == "mindex.ops" or name.startswith("mindex.ops.")):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mindex"):
                assert (node.module or "").startswith("mindex.ops") or layer_of(node.module or "") == len(LAYERS) - 1, \
                    f"{name} imports {node.module} when it loads"


def test_no_file_in_src_is_over_600_lines() -> None:
    long = {str(p.relative_to(SRC)): n for p in (SRC / "mindex").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_module_imports_another_modules_private_names() -> None:
    """A name with a leading underscore is its module's own: another module that needs it
    needs a public name (a module may still be bound to a private alias)."""
    reaching = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mindex"):
                target = node.module or ""
                reaching += [f"{name} imports {target}.{a.name}" for a in node.names
                             if a.name.startswith("_") and not a.name.startswith("__")
                             and f"{target}.{a.name}" not in modules()]
    assert reaching == []
