"""Source code parsed with tree-sitter: the syntax tree, the definitions a file holds (name,
kind, lines, signature, the names around it) and the query that finds them and the file's
references in one walk. `mindex.parse.cast` cuts the tree into chunks.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from typing import TYPE_CHECKING

from mindex.languages import SCRIPTS, Lang, grammar
from mindex.parse.bound import BOUND, FIELDS, FUNCTIONS, ZIG_TYPES, bound, zig_type
from mindex.parse.elixir import elixir_definition
from mindex.parse.params import body_after, parameter_span

if TYPE_CHECKING:
    from tree_sitter import Node, Query

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


class ParseTimeout(Exception):
    """tree-sitter gave up within the time limit."""


@dataclass(frozen=True)
class Parsed:
    """A syntax tree and the bytes it was parsed from. Node texts are read from `src` by
    their byte offsets (`node_text`): `node.text` reads through the parser's read callback again,
    which made reading names and references a tenth of the parsers' time."""

    root: Node
    src: bytes
    lang: Lang
    # Definitions already read, by (node id, enclosing names, owner's kind): chunking and
    # `definitions` meet the same nodes, and reading one is most of the time either spends.
    seen: dict[tuple[int, tuple[str, ...], str | None], Definition | None] = field(
        default_factory=dict, repr=False, compare=False)

    @cached_property
    def matches(self) -> tuple[list[Node], list[dict[str, list[Node]]]]:
        """The nodes that may be definitions, and the matches of the reference patterns (in
        file order), from one walk of the tree with `_queries`."""
        from tree_sitter import QueryCursor

        query, references = _queries(self.lang.name)
        found = QueryCursor(query).matches(self.root) if query is not None else []
        candidates = [caps["d"][0] for index, caps in found if index >= references and caps.get("d")]
        return candidates, [caps for index, caps in found if index < references]


def parse_tree(data: bytes, lang: Lang, timeout: float) -> Parsed:
    """Parse with tree-sitter; raise ParseTimeout past `timeout` seconds."""
    from tree_sitter import Parser

    language = grammar(lang.name)
    assert language is not None
    if lang.script_only:
        data = script_only(data)
    deadline = time.perf_counter() + timeout
    try:
        # A read callback, not the bytes: tree-sitter ignores the progress callback (the
        # time limit) when it is handed bytes. Texts are read from `data`, never through it.
        tree = Parser(language).parse(lambda offset, _point: data[offset:offset + 65536],
                                      progress_callback=lambda *_state: time.perf_counter() > deadline)
    except ValueError:
        raise ParseTimeout(f"parsing took longer than {timeout:g} s") from None
    return Parsed(tree.root_node, data, lang)


_SCRIPT = re.compile(rb"<script\b[^>]*>(.*?)</script\s*>", re.DOTALL | re.IGNORECASE)


def script_only(data: bytes) -> bytes:
    """A component file with every byte outside its `<script>` blocks made a space (line
    ends kept): the script parses as the file's own lines and offsets."""
    out = bytearray(re.sub(rb"[^\n]", b" ", data))
    for match in _SCRIPT.finditer(data):
        out[match.start(1):match.end(1)] = match.group(1)
    return bytes(out)


def _bytes(node: Node, src: bytes) -> bytes:
    return src[node.start_byte:node.end_byte]


def node_text(node: Node, src: bytes) -> str:
    """A node's text, read from the bytes it was parsed from."""
    return _bytes(node, src).decode("utf-8", "replace")


def one_line(node: Node | None, src: bytes) -> str:
    """A node's text, its runs of white space as one space ('' for no node)."""
    if node is None:
        return ""
    text = node_text(node, src)
    return text if text.isidentifier() else " ".join(text.split())  # most are plain names


def _name(node: Node, src: bytes) -> str | None:
    for fieldname in ("name", "declarator", "type", "definition"):
        child = node.child_by_field_name(fieldname)
        if child is None:
            continue
        if child.type.endswith(("identifier", "name")) or child.type in ("type_identifier", "constant"):
            return node_text(child, src)
        return _name(child, src) if child.named_child_count else node_text(child, src)
    for child in node.named_children:  # grammars without fields: the first identifier
        if child.type.endswith("identifier") or child.type in ("name", "word", "constant"):
            return node_text(child, src)
    return None


def _signature(node: Node, name: str, src: bytes) -> str:
    """The name and its parameters as written, on one line (cut at SIGNATURE_CHARS)."""
    spans = parameter_span(node)
    if spans is None:
        return name
    text = " ".join(src[spans[0] : spans[1]].decode("utf-8", "replace").split())
    return name + (text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…)")


# Nodes that wrap a definition (decorators, `export`): the definition is the field's node,
# its span is the wrapper's.
WRAPPERS = {"decorated_definition": "definition", "export_statement": "declaration"}
# A function defined in one of these is a method; a definition of the other kinds is no
# scope for what sits inside it (a C typedef's struct, a Go type's fields).
CLASS_KINDS = frozenset({"class", "struct", "interface", "impl", "union", "enum"})
NOT_SCOPES = frozenset({"type", "constant", "variable"})
_TYPE_SPECIFIERS = frozenset({"struct_specifier", "enum_specifier", "union_specifier", "class_specifier"})


def _at_path(node: Node, path: str) -> Node | None:
    """The node a `Lang.names` path leads to from `node` (see `mindex.languages.Lang`)."""
    current: Node | None = node
    for step in path.split("/"):
        if current is None:
            return None
        if step.startswith("**"):
            start = current
            current = next((n for n in walk(start) if n.type == step[2:] and n != start), None)
        elif step.startswith("="):
            current = next((c for c in current.named_children if c.type == step[1:]), None)
        else:
            current = current.child_by_field_name(step)
    return current


def _refine(lang: Lang, node: Node, kind: str, name: str) -> str | None:
    """The kind a node really defines, or None where the grammar's node type is not a
    definition here: a C `struct buffer *b` parameter, OCaml's `let () = ...`, a Makefile's
    special `.PHONY` target. OCaml values with parameters are functions, others constants."""
    if node.type in _TYPE_SPECIFIERS:
        return kind if node.child_by_field_name("body") is not None else None
    if lang.name == "ocaml" and node.type == "value_definition":
        binding = next((c for c in node.named_children if c.type == "let_binding"), None)
        pattern = binding.child_by_field_name("pattern") if binding is not None else None
        if binding is None or pattern is None or pattern.type != "value_name":
            return None
        body = binding.child_by_field_name("body")
        takes = any(c.type == "parameter" for c in binding.named_children)
        return "function" if takes or (body is not None and body.type in ("fun_expression", "function_expression")) \
            else "constant"
    if lang.name == "make" and node.type == "rule" and name.startswith("."):
        return None
    if lang.name == "haskell" and node.type == "bind" and node.parent is not None \
            and node.parent.type not in ("declarations", "class_declarations", "instance_declarations"):
        return None  # a `where` or `let` value, `x = f y`, is no definition (a `where` function is)
    if lang.name == "lua" and ":" in name:
        return "method"
    return kind


def definition_of(node: Node, tree: Parsed, parents: tuple[str, ...], owner: str | None = None) -> Definition | None:
    """The symbol this node defines, if its type is a definition in the language's row;
    `owner` is the kind of the definition it sits in (a function in a class is a method)."""
    inner = node.child_by_field_name(WRAPPERS[node.type]) if node.type in WRAPPERS else node
    if inner is None or (kind := tree.lang.definitions.get(inner.type)) is None:
        return None
    key = (node.id, parents, owner)
    if key not in tree.seen:
        tree.seen[key] = _define(node, inner, kind, tree.lang, tree.src, parents, owner)
    return tree.seen[key]


def _define(node: Node, inner: Node, kind: str, lang: Lang, src: bytes, parents: tuple[str, ...],
            owner: str | None) -> Definition | None:
    if lang.name == "zig" and inner.type == "variable_declaration":  # `const Names = struct { ... }`
        if (typed := zig_type(inner, src)) is None:
            return None
        return Definition(typed[0], typed[1], node.start_point[0] + 1, last_line(node, src), typed[0], parents,
                          _bytes(node, src).startswith(b"pub"))
    if inner.type in BOUND:  # JavaScript's `const f = () => ...`, `exports.f = function`
        if (binding := bound(inner, src)) is None:
            return None
        bound_name, kind, value = binding
        return Definition(bound_name, "method" if kind == "function" and owner in CLASS_KINDS else kind,
                          node.start_point[0] + 1, last_line(node, src), _signature(value, bound_name, src), parents,
                          inner.type == "expression_statement" or _exported(node, inner, lang, bound_name, src))
    if lang.name == "elixir":  # it defines by calling `def`, `defmodule`, ...
        made = elixir_definition(inner, src)
        return None if made is None else Definition(made[0], made[1], node.start_point[0] + 1, last_line(node, src),
                                                    made[2][:SIGNATURE_CHARS], parents, made[3])
    path = lang.names.get(inner.type)
    target = _at_path(inner, path) if path is not None else None
    if lang.name == "julia" and inner.type in ("function_definition", "macro_definition"):
        target = julia_head(next((c for c in inner.named_children if c.type == "signature"), None))
    name = (node_text(target, src) if target is not None else None) if path is not None else _name(inner, src)
    if lang.name == "dart" and inner.type.endswith("constructor_signature"):  # `User.fromJson`: `fromJson`
        named = [c for c in inner.named_children if c.type == "identifier"]  # `User(...)`: the class's own
        name = node_text(named[1], src) if len(named) > 1 else None
    if not name or (found := _refine(lang, inner, kind, name)) is None:
        return None
    kind, name = found, name.replace(":", ".") if lang.name == "lua" else name
    if lang.name == "go" and inner.type == "method_declaration":
        parents = (*parents, _go_receiver(inner, src))
    if lang.name == "julia" and target is not None and (extended := julia_extended(target, src)):
        parents = (extended,)  # `function Base.show(...)`: a method of Base's `show`
    if kind == "function" and (owner in CLASS_KINDS or "::" in name):
        kind = "method"
    if "::" in name and lang.name in ("cpp", "metal"):  # `void Foo::bar()` is Foo's `bar`, as in its class
        name = _cpp_qualified(name)
    end = last_line(body_after(inner) or node, src) if lang.name == "dart" else last_line(node, src)
    signature = _signature(inner, name, src)
    if lang.name == "haskell" and inner.type == "signature":  # `makeItem :: a -> Compiler (Item a)`
        signature = one_line(inner, src)
    elif signature == name and inner.type in _HEADS.get(lang.name, ()):  # the head as written
        signature = _head(inner, lang.name, src) or name
    if lang.name == "julia" and inner.type in ("function_definition", "macro_definition") and target is not None:
        head = julia_written(target, src)  # the head as written (`show(io::IO, f::File)`); `@check(ex)` for a macro
        name, signature = ("@" + name, "@" + head) if inner.type == "macro_definition" else (name, head)
    return Definition(name, kind, node.start_point[0] + 1, end, signature[:SIGNATURE_CHARS], parents,
                      _exported(node, inner, lang, name, src))


# Definitions whose signature is their head as written: MATLAB's `y = run(x)`, OCaml's `norm
# x`, PowerShell's `Invoke-Deploy([string]$Target)`.
_HEADS = {"matlab": ("function_definition",), "ocaml": ("value_definition",), "powershell": ("function_statement",)}


def _head(node: Node, language: str, src: bytes) -> str:
    """A definition's head: its first line without the keyword (MATLAB, PowerShell: up to its
    body's `{`), or an OCaml binding up to its `=`."""
    if language == "ocaml":
        binding = next((c for c in node.named_children if c.type == "let_binding"), None)
        body = binding.child_by_field_name("body") if binding is not None else None
        if binding is None or body is None:
            return ""
        text = src[binding.start_byte:body.start_byte].decode("utf-8", "replace")
        return " ".join(text.split()).rstrip("= ")[:SIGNATURE_CHARS]
    first = node_text(node, src).split("\n", 1)[0].split("{", 1)[0]
    words = first.split(None, 1)
    return " ".join((words[1] if len(words) > 1 else "").split())[:SIGNATURE_CHARS]


def julia_head(node: Node | None) -> Node | None:
    """The name of the function a Julia method's head defines: `f(x)`, `Base.show(io, x)`
    (a method of `show`), `f(x)::T`, `f(x) where T`, `Foo{T}(x)`; None for anything else (a
    functor's `(f::File)(x)`, a plain `x::Int`)."""
    while node is not None and node.type in ("signature", "where_expression", "typed_expression"):
        node = node.named_children[0] if node.named_children else None
    if node is None or node.type != "call_expression" or not node.named_children:
        return None
    callee = node.named_children[0]
    if callee.type in ("field_expression", "parametrized_type_expression") and callee.named_children:
        callee = callee.named_children[-1 if callee.type == "field_expression" else 0]
    return callee if callee.type == "identifier" else None


def julia_written(head: Node, src: bytes) -> str:
    """A Julia method head as written, on one line: the call its name is in (`norm2(p::Point)`)."""
    call = head.parent
    while call is not None and call.type != "call_expression":
        call = call.parent
    return one_line(call if call is not None else head, src)


def julia_extended(head: Node, src: bytes) -> str:
    """The module whose function a Julia method head adds to (`Base` of `Base.show(io, x)`), or ''."""
    parent = head.parent
    if parent is None or parent.type != "field_expression" or not parent.named_children:
        return ""
    return node_text(parent.named_children[0], src)


def _cpp_qualified(name: str) -> str:
    """A C++ definition written outside its class or namespace, as the index names members:
    `Foo::bar` → `Foo.bar`, `ns::Foo<T>::bar` → `ns.Foo.bar` (the template's arguments are not
    in its class's name), `Foo::operator<<` keeps its operator."""
    owner, _, last = name.rpartition("::")
    kept: list[str] = []
    opened: list[int] = []  # where each `<` not yet closed stands in `kept`
    for ch in owner:  # each `<...>` pair out, innermost first, in one pass (nesting made a loop quadratic)
        if ch == ">" and opened:
            del kept[opened.pop():]
            continue
        if ch == "<":
            opened.append(len(kept))
        kept.append(ch)
    parts = [p.strip() for p in "".join(kept).split("::") if p.strip()]
    return ".".join([*parts, last]) if parts else last


def last_line(node: Node, src: bytes) -> int:
    """The 1-based last line of a node's text, trailing newlines and blank lines left out (a
    Makefile rule's node takes the blank line after it)."""
    return node.start_point[0] + 1 + _bytes(node, src).rstrip().count(b"\n")


def _go_receiver(node: Node, src: bytes) -> str:
    """The type a Go method belongs to: `Conn` for `func (c *Conn) Close()`."""
    receiver = node.child_by_field_name("receiver")
    found = [n for n in walk(receiver) if n.type == "type_identifier"] if receiver is not None else []
    return node_text(found[0], src) if found else "?"


def walk(node: Node) -> Iterator[Node]:
    """Every named node under `node` (itself first), depth first in file order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.named_children))


_PRIVATE_MODIFIERS = {"private", "protected", "internal", "fileprivate"}
_MODIFIER_TYPES = frozenset({"accessibility_modifier", "modifiers", "modifier", "storage_class_specifier"})


def _exported(node: Node, inner: Node, lang: Lang, name: str, src: bytes) -> bool:
    """Whether a definition is visible outside its file (module, package, crate)."""
    # The text of the modifier nodes only: decoding every head would decode a whole body.
    heads = {child.type: node_text(child, src) if child.type in _MODIFIER_TYPES else ""
             for child in inner.children[:4]}
    if lang.name == "go":
        return name[:1].isupper()
    if lang.name == "rust":
        return "visibility_modifier" in heads
    if lang.name == "zig":
        return _bytes(node, src).startswith(b"pub")
    if lang.name in SCRIPTS:
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
    if lang.name in ("c", "cpp", "objc", "metal"):
        return heads.get("storage_class_specifier") != "static"
    if lang.name == "lua":
        return not _bytes(node, src).startswith(b"local")
    return not (name.startswith("_") and not (name.startswith("__") and name.endswith("__")))


def _in_interface(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "interface_body"


def module_constants(root: Node, lang: Lang, src: bytes) -> list[Definition]:
    """Definitions the grammar has no definition node for: Python `NAME = ...` (upper case),
    JavaScript/TypeScript top-level `const`, Java `static final` fields; functions defined by
    assignment: JS/TS `const f = () => ...`, Lua `M.f = function(...)`, Julia `f(x) = ...`."""
    found: list[Definition] = []

    def add(name_node: Node | None, kind: str, span: Node, exported: bool, parents: tuple[str, ...] = (),
            dotted: bool = False, signature: str = "") -> None:
        if name_node is not None and (name_node.type == "identifier" or dotted):
            name = node_text(name_node, src)
            found.append(Definition(name, kind, span.start_point[0] + 1, last_line(span, src),
                                    signature[:SIGNATURE_CHARS] or name, parents, exported))

    if lang.name == "python":
        for child in root.named_children:
            if child.type == "expression_statement" and child.named_children[0].type == "assignment":
                target = child.named_children[0].child_by_field_name("left")
                text = node_text(target, src) if target is not None else ""
                if text.isupper() or (text.startswith("_") and text[1:].isupper()):
                    add(target, "constant", child, not text.startswith("_"))
    elif lang.name in SCRIPTS:
        for child in root.named_children:
            exported = child.type == "export_statement"
            decl = child.child_by_field_name("declaration") if exported else child
            if decl is None or decl.type != "lexical_declaration" or not _bytes(decl, src).startswith(b"const") \
                    or bound(decl, src) is not None:  # a function: a definition node (`BOUND`)
                continue
            for declarator in decl.named_children:
                if declarator.type == "variable_declarator":
                    add(declarator.child_by_field_name("name"), "constant", child, exported)
    elif lang.name == "lua":
        for child in root.named_children:
            if child.type != "assignment_statement" or len(child.named_children) != 2:
                continue
            names, values = child.named_children
            if len(names.named_children) == 1 and len(values.named_children) == 1 \
                    and values.named_children[0].type == "function_definition":
                target = names.named_children[0]
                add(target, "function", child, True, dotted=target.type in ("identifier", "dot_index_expression"))
    elif lang.name == "julia":
        for node in walk(root):
            scope = node.parent
            if node.type != "assignment" or scope is None or scope.type not in ("source_file", "module_definition"):
                continue
            if (head := julia_head(node.named_children[0] if node.named_children else None)) is not None:
                parents = (_name(scope, src) or "?",) if scope.type == "module_definition" else ()
                add(head, "function", node, True, (extended,) if (extended := julia_extended(head, src)) else parents,
                    signature=julia_written(head, src))
    elif lang.name == "java":
        for node in walk(root):
            if node.type != "field_declaration":
                continue
            modifiers = next((c for c in node.children if c.type == "modifiers"), None)
            words = set(node_text(modifiers, src).split()) if modifiers is not None else set()
            owner = node.parent.parent if node.parent is not None else None
            if {"static", "final"} <= words and owner is not None:
                field = node.child_by_field_name("declarator")
                add(field.child_by_field_name("name") if field is not None else None, "constant", node,
                    "public" in words, (_name(owner, src) or "?",))
    return found


def definitions(tree: Parsed) -> list[Definition]:
    """Every definition in the tree, outermost first, with its enclosing names.

    A tree-sitter query finds the nodes whose type can be a definition (a tiny share of the
    tree); each one's enclosing scopes are the candidates that hold it, kept on a stack in
    document order, which gives the names a walk over every node would."""
    root, src, lang = tree.root, tree.src, tree.lang
    candidates = sorted(tree.matches[0], key=lambda n: (n.start_byte, -n.end_byte, _depth(n)))
    found: list[Definition] = []
    scopes: list[tuple[int, tuple[str, ...], str | None]] = []  # (end byte, names inside, kind)
    inner_of_wrapper: set[int] = set()
    for node in candidates:
        if node.id in inner_of_wrapper:
            continue  # counted at its wrapper (decorators, export)
        while scopes and scopes[-1][0] <= node.start_byte:
            scopes.pop()
        parents, owner = (scopes[-1][1], scopes[-1][2]) if scopes else ((), None)
        own = definition_of(node, tree, parents, owner)
        if own is None:
            continue
        found.append(own)
        if node.type in WRAPPERS:
            inner = node.child_by_field_name(WRAPPERS[node.type])
            if inner is not None:
                inner_of_wrapper.add(inner.id)
        if own.kind not in NOT_SCOPES:  # C#'s `namespace Kit;` holds the rest of its file
            end = root.end_byte if node.type == "file_scoped_namespace_declaration" else node.end_byte
            scopes.append((end, (*own.parents, own.name), own.kind))
    found += module_constants(root, lang, src)
    found.sort(key=lambda d: (d.start_line, -d.end_line))
    return _join_equations(found) if lang.name == "haskell" else found


def _depth(node: Node) -> int:
    depth, parent = 0, node.parent
    while parent is not None:
        depth, parent = depth + 1, parent.parent
    return depth


@cache
def _queries(lang_name: str) -> tuple[Query | None, int]:
    """One query to walk a language's trees with once (two walks took a third more time):
    the reference patterns of `queries/<language>.scm` (see mindex.parse.refs) first, then
    one capturing every node whose type is a definition or wraps one, as `@d`. Returns the
    query and how many patterns are reference patterns."""
    from tree_sitter import Query

    from mindex.languages import BY_NAME

    language = grammar(lang_name)
    if language is None:
        return None, 0
    lang = BY_NAME[lang_name]
    references = reference_patterns(lang_name) or ""
    count = Query(language, references).pattern_count if references else 0
    types = sorted(t for t in {*lang.definitions, *WRAPPERS} - set(BOUND) if language.id_for_node_kind(t, True))
    definitions = "[" + " ".join(f"({t})" for t in types) + "] @d" if types else ""
    values = " ".join(f"({t})" for t in sorted({*FUNCTIONS, "assignment_expression"}) if language.id_for_node_kind(t, True))
    if lang.name == "zig":  # only a `const` that holds a type
        definitions += "\n(variable_declaration [" + " ".join(f"({t})" for t in sorted(ZIG_TYPES)) + "]) @d"
    for statement in (t for t in BOUND if t in lang.definitions and language.id_for_node_kind(t, True)
                      and lang.name != "zig"):
        shape = ("(assignment_expression right: [{v}])" if statement == "expression_statement"
                 else "value: [{v}]" if statement in FIELDS else "(variable_declarator value: [{v}])")
        definitions += f"\n({statement} {shape.format(v=values)}) @d"
    text = "\n".join(part for part in (references, definitions) if part)
    return (Query(language, text) if text else None), count


def reference_patterns(name: str) -> str | None:
    """A language's reference query file, with the files it names in `; inherits: a, b`
    lines put in front."""
    source = resources.files("mindex.parse") / "queries" / f"{name}.scm"
    if not source.is_file():
        return None
    text = source.read_text(encoding="utf-8")
    parents = [part.strip() for line in text.splitlines() if line.startswith("; inherits:")
               for part in line.removeprefix("; inherits:").split(",")]
    return "\n".join([*(reference_patterns(p) or "" for p in parents), text])


def _join_equations(found: list[Definition]) -> list[Definition]:
    """Haskell defines a function by a type signature and one equation per pattern: one
    definition spanning them all."""
    out: list[Definition] = []
    for d in found:
        last = out[-1] if out else None
        if (last is not None and last.qualname == d.qualname and last.kind in ("function", "method")
                and d.kind in ("function", "method") and d.start_line <= last.end_line + 1):
            out[-1] = Definition(last.name, last.kind, last.start_line, max(last.end_line, d.end_line),
                                 last.signature, last.parents, last.exported)
        else:
            out.append(d)
    return out
