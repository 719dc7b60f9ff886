"""Elixir's definitions, which are calls: `defmodule MyApp.Accounts do`, `def list_users(opts)`,
`defp hidden(z), do: z`, `def f(x) when is_integer(x)`. Each clause of a function is a
definition; `defp`, `defmacrop` and `defguardp` are private to their module; a function's
`@doc`, `@spec` and `@impl` above it belong to its chunk (`mindex.parse.code` asks `is_note`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

# What each defining call defines (a `p` at the end: private to its module).
DEFINERS = {"defmodule": "module", "defprotocol": "interface", "defimpl": "impl", "def": "function",
            "defp": "function", "defmacro": "function", "defmacrop": "function", "defguard": "function",
            "defguardp": "function", "defdelegate": "function"}
NOTES = (b"@doc", b"@spec", b"@impl", b"@deprecated", b"@since", b"@typedoc")


def _text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _definer(call: Node, src: bytes) -> str:
    target = call.child_by_field_name("target") if call.type == "call" else None
    return _text(target, src) if target is not None and target.type == "identifier" else ""


def defines(node: Node, src: bytes) -> bool:
    """Whether a node is a call of `def`, `defmodule`, ..."""
    return _definer(node, src) in DEFINERS


def is_note(node: Node, src: bytes) -> bool:
    """Whether an attribute (`@doc ...`) documents the definition after it."""
    return src[node.start_byte : node.start_byte + 11].startswith(NOTES)


def elixir_definition(call: Node, src: bytes) -> tuple[str, str, str, bool] | None:
    """The definition a call makes, named by its first argument: (name, kind, signature,
    exported); None for any other call."""
    definer = _definer(call, src)
    arguments = next((c for c in call.named_children if c.type == "arguments"), None)
    if definer not in DEFINERS or arguments is None or not arguments.named_children:
        return None
    head = arguments.named_children[0]
    if head.type == "binary_operator":  # a guard: `f(x) when ...`
        head = head.child_by_field_name("left") or head
    named = head.child_by_field_name("target") if head.type == "call" else head
    if named is None or named.type not in ("identifier", "alias"):
        return None
    name = _text(named, src)
    params = next((c for c in head.named_children if c.type == "arguments"), None) if head.type == "call" else None
    signature = name + (" ".join(_text(params, src).split()) if params is not None else "")
    return name, DEFINERS[definer], signature, not definer.endswith("p")
