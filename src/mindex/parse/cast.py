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

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mindex.parse.bound import FIELDS
from mindex.parse.code import CLASS_KINDS, NOT_SCOPES, WRAPPERS, Definition, Parsed, definition_of, walk
from mindex.parse.elixir import defines, is_note

if TYPE_CHECKING:
    from tree_sitter import Node


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
    comment: bool = False  # a comment: it joins the definition right after it
    note: bool = False  # Elixir's `@doc`: as a comment, and never the tail of the code before it
    closer: bool = False  # a class's closing `}` or `end`: the tail of the chunk before it


def _atoms(node: Node, tree: Parsed, budget: int, chain: tuple[Definition, ...], out: list[_Atom]) -> list[_Atom]:
    """The tree cut into atoms, appended to `out` in order: a child that fits the budget is
    one, except that a class-like definition is always opened so each member becomes an atom
    of its own (definition-level chunks); a child over budget is opened too. (A list, not a
    generator: every atom passed up through each level's `yield from`.)"""
    scopes = [d for d in chain if d.kind not in NOT_SCOPES]
    parents, owner = ((*scopes[-1].parents, scopes[-1].name), scopes[-1].kind) if scopes else ((), None)
    for child in node.children:
        # a class field holding a function is a definition, not a chunk of its own (measured)
        own = definition_of(child, tree, parents, owner) if child.type not in FIELDS else None
        size = child.end_byte - child.start_byte
        members = (own is not None and own.kind in OPENED) or (
            own is None and owner in OPENED and child.named_child_count > 0 and _holds_definition(child, tree))
        inner = child.child_by_field_name(WRAPPERS[child.type]) if own is not None and child.type in WRAPPERS else None
        if child.child_count and (size > budget or members) and inner is not None and own is not None:
            # A decorated (or exported) definition opened into its members: its decorators
            # are atoms of the definition's own level, so they join its header, and the
            # definition is one level of the chain, not two (`RetryPolicy › RetryPolicy`).
            for part in child.children:
                if (part.start_byte, part.end_byte, part.type) == (inner.start_byte, inner.end_byte, inner.type):
                    _atoms(part, tree, budget, (*chain, own), out)
                else:
                    out.append(_Atom(part.start_point[0], part.end_point[0], part.end_byte - part.start_byte,
                                     (*chain, own), None, *_leads(part, tree)))
        elif child.child_count and (size > budget or members):
            _atoms(child, tree, budget, (*chain, own) if own else chain, out)
        else:
            out.append(_Atom(child.start_point[0], child.end_point[0], size, chain, own, *_leads(child, tree)))
    return out


def _leads(node: Node, tree: Parsed) -> tuple[bool, bool, bool]:
    """Whether a node joins the definition right after it (a comment, or Elixir's `@doc`,
    `@spec` and `@impl`: an Elixir function's documentation is an attribute above it), whether
    it is such an attribute, and whether it closes a class (it joins the chunk before it: a
    chunk of one `}` titled with the class drew queries about the class)."""
    if "comment" in node.type:
        return True, False, False
    if not node.is_named:
        return False, False, node.type in CLOSERS
    note = tree.lang.name == "elixir" and node.type == "unary_operator" and is_note(node, tree.src)
    return note, note, False


CLOSERS = frozenset({"}", "end", ";", ","})


# Definitions opened into their members even when they fit the budget whole.
OPENED = CLASS_KINDS | {"module"}


def _holds_definition(node: Node, tree: Parsed) -> bool:
    """True when a definition sits somewhere below `node` (a class's body holding methods; in
    Elixir, where every call is a node of the definitions' type, a call of `def`, ...)."""
    if tree.lang.name == "elixir":
        return any(defines(n, tree.src) for n in walk(node) if n != node)
    return any(n.type in tree.lang.definitions for n in walk(node) if n != node)


def _pack(atoms: list[_Atom], budget: int) -> list[list[_Atom]]:
    """Atoms into chunks: each definition is a chunk of its own (with the comments right above
    it); other atoms at the same level (imports, statements, a class's header and fields)
    share chunks up to the budget."""
    groups: list[list[_Atom]] = []
    size = 0
    comments_only = defined = False  # of the last group: every atom a comment / any a definition
    for atom in atoms:
        last = groups[-1] if groups else None
        # Entering or leaving a definition that had to be split starts a new chunk, so a
        # chunk never holds the tail of one split function and the head of the next thing.
        # (The same definitions, not only as many: a class's closing brace must not join the
        # decorator of the next class, which is one level deep too.)
        same_level = last is not None and atom.chain == last[-1].chain
        if last is not None and (atom.start_row == last[0].start_row or atom.closer):
            joins = True  # never cut a line in two; a class's `}` ends the chunk before it
        elif atom.own is not None or atom.note:
            joins = same_level and comments_only and atom.start_row <= last[-1].end_row + 1  # type: ignore[index]
        else:
            joins = same_level and not defined and size + atom.size <= budget
        if joins and last is not None:
            last.append(atom)
            size += atom.size
            comments_only, defined = comments_only and atom.comment, defined or atom.own is not None
        else:
            groups.append([atom])
            size = atom.size
            comments_only, defined = atom.comment, atom.own is not None
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


def chunk_code(text: str, tree: Parsed, budget: int) -> list[CodeChunk]:
    """Cut a parsed file into chunks of whole lines (see the module docstring)."""
    lines = text.split("\n")
    groups = _pack(_atoms(tree.root, tree, budget, (), []), budget)
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
    if sum(map(len, lines)) + len(lines) <= 2 * budget:
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
