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
    if kind == "function" and parents:
        kind = "method"
    return Definition(name, kind, node.start_point[0] + 1, node.end_point[0] + 1, _signature(inner, name), parents)


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
