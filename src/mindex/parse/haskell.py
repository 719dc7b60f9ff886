"""Haskell's imports, read whole from an `import` node: what each brings and under which
names. `import Kit.Util` brings every name Kit/Util.hs exports, unqualified and as
`Kit.Util.f`; `import qualified Data.Map as M` only `M.f`; `import Data.List (sortBy)` the
names listed (and `Data.List.sortBy`); `hiding (f)` every name but those (read as every name);
`as K` renames the qualifier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node


def _text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def haskell_imports(statement: Node, src: bytes) -> list[tuple[str, str, str]]:
    """(module, name, alias) triples of one `import`, as `mindex.parse.refs` records imports:
    name "*" for every name, "" for the module alone under `alias`."""
    module_node = statement.child_by_field_name("module")
    if module_node is None:
        return []
    module = _text(module_node, src)
    alias_node = statement.child_by_field_name("alias")
    alias = _text(alias_node, src) if alias_node is not None else module
    words = {child.type for child in statement.children if not child.is_named}
    listed = statement.child_by_field_name("names")
    found = [(module, "", alias)]  # `M.f` (or `Data.Map.f`)
    if "qualified" in words:
        return found
    if listed is None or "hiding" in words:
        return [(module, "*", alias)]  # `Kit.f` too: the graph reads the module of a "*" import
    for item in listed.named_children:
        name = item.child_by_field_name("variable")
        if name is not None:
            found.append((module, _text(name, src), _text(name, src)))
    return found
