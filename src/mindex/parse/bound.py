"""Definitions bound by a statement rather than declared: JavaScript's functions (`const f =
() => ...`, `var f = function`, and CommonJS's assignments at a file's top level: `exports.f =
function`, `proto.handle = function handle`, `Foo.prototype.bar = ...`), and Zig's types
(`const Names = struct { ... }`). The code parser takes such a statement as a definition
(`mindex.parse.code._define`) when `bound` or `zig_type` names one."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

FUNCTIONS = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
# Statements that define a function when they bind one: the definition query captures only
# those (`mindex.parse.code._queries`), not every statement.
BOUND = ("lexical_declaration", "variable_declaration", "expression_statement", "public_field_definition",
         "field_definition")
# A class field holding a function (`handle = (e) => ...`, a method that keeps `this`): its
# name's field, by grammar.
FIELDS = {"public_field_definition": "name", "field_definition": "property"}
# Zig's containers, by the kind of definition a `const` holding one is.
ZIG_TYPES = {"struct_declaration": "struct", "enum_declaration": "enum", "union_declaration": "union",
             "opaque_declaration": "struct"}


def _text(node: Node, src: bytes) -> str:  # `mindex.parse.code.node_text`, which imports this module
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _value(node: Node | None) -> Node | None:
    """What a chain of assignments gives (`a = module.exports = function`)."""
    while node is not None and node.type == "assignment_expression":
        node = node.child_by_field_name("right")
    return node


def bound(node: Node, src: bytes) -> tuple[str, str, Node] | None:
    """(name, kind, function) of the function a statement binds: the first declarator of a
    declaration that takes one, a class field's (a method), or, at a file's top level, an
    assignment: `exports.f` and `module.exports.f` are `f`, `proto.handle` is `proto.handle`
    and `Foo.prototype.bar` is `Foo.bar` (methods), `module.exports = function name` is
    `name`. None for any other."""
    if node.type in FIELDS:
        value, target = _value(node.child_by_field_name("value")), node.child_by_field_name(FIELDS[node.type])
        if value is None or value.type not in FUNCTIONS or target is None:
            return None
        return _text(target, src), "method", value
    if node.type != "expression_statement":
        for declarator in node.named_children:
            value = _value(declarator.child_by_field_name("value"))
            target = declarator.child_by_field_name("name")
            if value is not None and value.type in FUNCTIONS and target is not None and target.type == "identifier":
                return _text(target, src), "function", value
        return None
    assigned = node.named_children[0] if node.named_children else None
    value = _value(assigned)
    if assigned is None or value is None or value.type not in FUNCTIONS or node.parent is None \
            or node.parent.type != "program":
        return None
    while assigned.type == "assignment_expression" and (left := assigned.child_by_field_name("left")) is not None:
        parts = _text(left, src).split(".")
        exports = 2 if parts[:2] == ["module", "exports"] else 1 if parts[:1] == ["exports"] else 0
        parts = [p for p in parts[exports:] if p != "prototype"]
        if not parts and (own := value.child_by_field_name("name")) is not None:
            parts = [_text(own, src)]
        if parts and parts[0] != "this" and all(p.replace("$", "_").isidentifier() for p in parts):
            return ".".join(parts), "method" if len(parts) > 1 else "function", value
        assigned = assigned.child_by_field_name("right") or value
    return None


def zig_type(node: Node, src: bytes) -> tuple[str, str] | None:
    """(name, kind) of the type a Zig `const Name = struct { ... }` (enum, union, opaque)
    binds; None for any other declaration."""
    children = node.named_children
    if len(children) < 2 or children[0].type != "identifier":
        return None
    kind = next((ZIG_TYPES[c.type] for c in children[1:] if c.type in ZIG_TYPES), None)
    return (_text(children[0], src), kind) if kind else None
