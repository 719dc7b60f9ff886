"""Source code into chunks the cAST way: syntax units, split when too big, merged when small.

The tree is cut into atoms: nodes that fit the size budget (or cannot be cut further); a node
over budget is replaced by its children. Atoms are then packed in order into chunks of whole
lines up to the budget, so a function is one chunk, a large class becomes several chunks
along method boundaries, and small neighbours share one; entering or leaving a definition
that had to be split always starts a new chunk. Chunk boundaries are lines and
every line of the file belongs to exactly one chunk, so module-level code and comments are
never lost. Each chunk carries the definitions around it as a context line
(`path › Class › method(signature)`) and, where one stands out, its symbol.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mindex.languages import Lang, grammar

if TYPE_CHECKING:
    from tree_sitter import Node

SIGNATURE_CHARS = 160


@dataclass(frozen=True)
class Definition:
    """A symbol defined in a file: name, kind, 1-based line span, signature, enclosing names."""

    name: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    parents: tuple[str, ...] = ()
    exported: bool = True  # visible outside its file or module (pub, export, Capitalized, no _)

    @property
    def qualname(self) -> str:
        """`Class.method` style name."""
        return ".".join((*self.parents, self.name))


@dataclass(frozen=True)
class CodeChunk:
    """A chunk of a source file before it gets an id: lines, text, context, symbol."""

    start_line: int
    end_line: int
    text: str
    context: tuple[str, ...]
    symbol: str | None
    symbol_kind: str | None


@dataclass(frozen=True)
class _Atom:
    start_row: int  # 0-based
    end_row: int
    size: int
    chain: tuple[Definition, ...]  # definitions around the atom
    own: Definition | None  # the atom is itself a definition


class ParseTimeout(Exception):
    """tree-sitter gave up within the time limit."""


def parse_tree(data: bytes, lang: Lang, timeout: float) -> Node:
    """Parse with tree-sitter; raise ParseTimeout past `timeout` seconds."""
    from tree_sitter import Parser

    language = grammar(lang.name)
    assert language is not None
    deadline = time.perf_counter() + timeout
    try:
        tree = Parser(language).parse(lambda offset, _point: data[offset:offset + 65536],
                                      progress_callback=lambda *_state: time.perf_counter() > deadline)
    except ValueError:
        raise ParseTimeout(f"parsing took longer than {timeout:g} s") from None
    return tree.root_node


def _name(node: Node) -> str | None:
    for fieldname in ("name", "declarator", "type", "definition"):
        child = node.child_by_field_name(fieldname)
        if child is None:
            continue
        if child.type.endswith(("identifier", "name")) or child.type in ("type_identifier", "constant"):
            return (child.text or b"").decode("utf-8", "replace")
        return _name(child) if child.named_child_count else (child.text or b"").decode("utf-8", "replace")
    for child in node.named_children:  # grammars without fields: the first identifier
        if child.type.endswith("identifier") or child.type in ("name", "word", "constant"):
            return (child.text or b"").decode("utf-8", "replace")
    return None


def _signature(node: Node, name: str) -> str:
    params = node.child_by_field_name("parameters")
    if params is None:
        declarator = node.child_by_field_name("declarator")
        params = declarator.child_by_field_name("parameters") if declarator is not None else None
    if params is None:
        return name
    text = " ".join((params.text or b"").decode("utf-8", "replace").split())
    return name + (text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…)")


# Nodes that wrap a definition (decorators, `export`): the definition is the field's node,
# its span is the wrapper's.
WRAPPERS = {"decorated_definition": "definition", "export_statement": "declaration"}


def definition_of(node: Node, lang: Lang, parents: tuple[str, ...]) -> Definition | None:
    """The symbol this node defines, if its type is a definition in the language's row."""
    inner = node.child_by_field_name(WRAPPERS[node.type]) if node.type in WRAPPERS else node
    if inner is None or (kind := lang.definitions.get(inner.type)) is None:
        return None
    name = _name(inner)
    if not name:
        return None
    if lang.name == "go" and inner.type == "method_declaration":
        parents = (*parents, _go_receiver(inner))
    if kind == "function" and parents:
        kind = "method"
    return Definition(name, kind, node.start_point[0] + 1, node.end_point[0] + 1, _signature(inner, name), parents,
                      _exported(node, inner, lang, name))


def _go_receiver(node: Node) -> str:
    """The type a Go method belongs to: `Conn` for `func (c *Conn) Close()`."""
    receiver = node.child_by_field_name("receiver")
    found = [n for n in _walk(receiver) if n.type == "type_identifier"] if receiver is not None else []
    return (found[0].text or b"").decode() if found else "?"


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.named_children))


_PRIVATE_MODIFIERS = {"private", "protected", "internal", "fileprivate"}


def _exported(node: Node, inner: Node, lang: Lang, name: str) -> bool:
    """Whether a definition is visible outside its file (module, package, crate)."""
    heads = {child.type: (child.text or b"").decode("utf-8", "replace") for child in inner.children[:4]}
    if lang.name == "go":
        return name[:1].isupper()
    if lang.name == "rust":
        return "visibility_modifier" in heads
    if lang.name in ("javascript", "typescript", "tsx"):
        if name.startswith("#") or heads.get("accessibility_modifier") in ("private", "protected"):
            return False
        parent = inner.parent
        if parent is not None and parent.type == "class_body":  # a member: as visible as its class
            owner = parent.parent
            return owner is not None and (owner.parent is not None and owner.parent.type == "export_statement")
        return node.type == "export_statement"
    if lang.name in ("java", "csharp", "kotlin", "scala", "swift", "php"):
        words = set(heads.get("modifiers", heads.get("modifier", "")).split())
        if words & _PRIVATE_MODIFIERS:
            return False
        return "public" in words or lang.name != "java" or _in_interface(inner)
    if lang.name in ("c", "cpp"):
        return heads.get("storage_class_specifier") != "static"
    return not (name.startswith("_") and not (name.startswith("__") and name.endswith("__")))


def _in_interface(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "interface_body"


def module_constants(root: Node, lang: Lang) -> list[Definition]:
    """Module-level constants the grammar has no definition node for: Python `NAME = ...`
    (upper case), JavaScript/TypeScript top-level `const`, Java `static final` fields.
    JS/TS `const f = () => ...` is a function."""
    found: list[Definition] = []

    def add(name_node: Node | None, kind: str, span: Node, exported: bool, parents: tuple[str, ...] = ()) -> None:
        if name_node is not None and name_node.type == "identifier":
            name = (name_node.text or b"").decode("utf-8", "replace")
            found.append(Definition(name, kind, span.start_point[0] + 1, span.end_point[0] + 1, name, parents,
                                    exported))

    if lang.name == "python":
        for child in root.named_children:
            if child.type == "expression_statement" and child.named_children[0].type == "assignment":
                target = child.named_children[0].child_by_field_name("left")
                text = (target.text or b"").decode() if target is not None else ""
                if text.isupper() or (text.startswith("_") and text[1:].isupper()):
                    add(target, "constant", child, not text.startswith("_"))
    elif lang.name in ("javascript", "typescript", "tsx"):
        for child in root.named_children:
            exported = child.type == "export_statement"
            decl = child.child_by_field_name("declaration") if exported else child
            if decl is None or decl.type != "lexical_declaration" or not (decl.text or b"").startswith(b"const"):
                continue
            for declarator in decl.named_children:
                if declarator.type != "variable_declarator":
                    continue
                value = declarator.child_by_field_name("value")
                callable_ = value is not None and value.type in ("arrow_function", "function_expression", "function")
                add(declarator.child_by_field_name("name"), "function" if callable_ else "constant", child, exported)
    elif lang.name == "java":
        for node in _walk(root):
            if node.type != "field_declaration":
                continue
            modifiers = next((c for c in node.children if c.type == "modifiers"), None)
            words = set((modifiers.text or b"").decode().split()) if modifiers is not None else set()
            owner = node.parent.parent if node.parent is not None else None
            if {"static", "final"} <= words and owner is not None:
                field = node.child_by_field_name("declarator")
                add(field.child_by_field_name("name") if field is not None else None, "constant", node,
                    "public" in words, (_name(owner) or "?",))
    return found


def definitions(root: Node, lang: Lang) -> list[Definition]:
    """Every definition in the tree, outermost first, with its enclosing names."""
    found: list[Definition] = []
    stack: list[tuple[Node, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, parents = stack.pop()
        own = definition_of(node, lang, parents)
        if own is not None:
            found.append(own)
            parents = (*parents, own.name)
            if node.type in WRAPPERS:  # its definition is counted: go on below it
                node = node.child_by_field_name(WRAPPERS[node.type]) or node
        stack.extend((child, parents) for child in reversed(node.named_children))
    found += module_constants(root, lang)
    return sorted(found, key=lambda d: (d.start_line, -d.end_line))


def _atoms(node: Node, lang: Lang, budget: int, chain: tuple[Definition, ...]) -> Iterator[_Atom]:
    for child in node.children:
        own = definition_of(child, lang, tuple(d.name for d in chain))
        size = child.end_byte - child.start_byte
        if size <= budget or child.child_count == 0:
            yield _Atom(child.start_point[0], child.end_point[0], size, chain, own)
        else:
            yield from _atoms(child, lang, budget, (*chain, own) if own else chain)


def _pack(atoms: list[_Atom], budget: int) -> list[list[_Atom]]:
    groups: list[list[_Atom]] = []
    size = 0
    for atom in atoms:
        # Entering or leaving a definition that had to be split starts a new chunk, so a
        # chunk never holds the tail of one split function and the head of the next thing.
        same_level = bool(groups) and len(atom.chain) == len(groups[-1][-1].chain)
        if groups and ((same_level and size + atom.size <= budget) or atom.start_row == groups[-1][0].start_row):
            groups[-1].append(atom)
            size += atom.size
        else:
            groups.append([atom])
            size = atom.size
    return groups


def _label(group: list[_Atom]) -> tuple[tuple[str, ...], Definition | None]:
    """Context names and the chunk's symbol: its first own definition, else the one it is in."""
    own = next((a.own for a in group if a.own is not None), None)
    if own is not None:
        return (*own.parents, own.signature), own
    chain = group[0].chain
    if not chain:
        return (), None
    return (*(d.name for d in chain[:-1]), chain[-1].signature), chain[-1]


def chunk_code(text: str, root: Node, lang: Lang, budget: int) -> list[CodeChunk]:
    """Cut a parsed file into chunks of whole lines (see the module docstring)."""
    lines = text.split("\n")
    groups = _pack(list(_atoms(root, lang, budget, ())), budget)
    starts = [0] + [g[0].start_row for g in groups[1:]]
    chunks: list[CodeChunk] = []
    for n, group in enumerate(groups):
        first = starts[n]
        last = (starts[n + 1] - 1) if n + 1 < len(groups) else len(lines) - 1
        while last > first and not lines[last].strip():
            last -= 1
        if not lines[last].strip():  # only blank lines
            continue
        context, symbol = _label(group)
        for start, piece in _split_long(first, lines[first:last + 1], budget):
            chunks.append(CodeChunk(start + 1, start + piece.count("\n") + 1, piece, context,
                                    symbol.qualname if symbol else None, symbol.kind if symbol else None))
    return chunks


def _split_long(first: int, lines: list[str], budget: int) -> Iterator[tuple[int, str]]:
    """Lines of one chunk, cut into pieces of about `budget` characters only if it is far over
    (an atom tree-sitter could not cut, such as a huge literal)."""
    if sum(len(line) + 1 for line in lines) <= 2 * budget:
        yield first, "\n".join(lines)
        return
    piece: list[str] = []
    size, start = 0, first
    for n, line in enumerate(lines):
        if piece and size + len(line) > budget:
            yield start, "\n".join(piece)
            piece, size, start = [], 0, first + n
        piece.append(line)
        size += len(line) + 1
    if piece:
        yield start, "\n".join(piece)
