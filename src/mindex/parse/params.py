"""Where a definition's parameters are written, for its signature: the `parameters` field (its
declarator's in C), or, in grammars that name no such field, Kotlin's and Dart's parameter
lists, a Kotlin class's primary constructor, Dart's `int go(int x)` inside its method signature,
and Swift's parameters between the function's own parentheses."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

_LISTS = frozenset({"function_value_parameters", "primary_constructor", "formal_parameter_list"})


def body_after(node: Node) -> Node | None:
    """Dart's function body, which follows its signature (or the method signature holding it)
    instead of sitting inside it: a definition whose span stopped at its signature's line."""
    holder = node.parent if node.parent is not None and node.parent.type == "method_signature" else node
    following = holder.next_named_sibling
    return following if following is not None and following.type == "function_body" else None


def parameter_span(node: Node) -> tuple[int, int] | None:
    """The byte span of a definition's parameters, parentheses included; None when it has none."""
    params = node.child_by_field_name("parameters")
    if params is None and (declarator := node.child_by_field_name("declarator")) is not None:
        params = declarator.child_by_field_name("parameters")
    if params is None:
        params = next((c for c in node.named_children if c.type in _LISTS), None)
    if params is None and node.type == "method_signature":  # Dart
        inner = next((c for c in node.named_children if c.type == "function_signature"), None)
        return parameter_span(inner) if inner is not None else None
    if params is None and node.type == "function_declaration":  # Swift
        opened, closed = (next((c for c in node.children if c.type == t), None) for t in ("(", ")"))
        return (opened.start_byte, closed.end_byte) if opened is not None and closed is not None else None
    return (params.start_byte, params.end_byte) if params is not None else None
