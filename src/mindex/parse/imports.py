"""Imports read whole from their statement, for the languages whose one statement brings
several names, each maybe renamed: Scala's `import a.{B, C => D}`, Solidity's `import {A, B as
C} from "x.sol"`, Rust's `use a::{b, c::D as E}` and Haskell's `import qualified Data.Map as M`
/ `import Data.List (sortBy)` / `hiding`. Each gives (module, name, alias) triples as
`mindex.parse.refs` records imports: name "*" for every name, "" for the module alone under
`alias`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindex.parse.code import one_line

if TYPE_CHECKING:
    from tree_sitter import Node


def statement_imports(language: str, statement: Node, src: bytes) -> list[tuple[str, str, str]]:
    """The (module, name, alias) triples of one import statement of `language`."""
    if language == "scala":
        return scala_imports(statement, src)
    if language == "solidity":
        return solidity_imports(statement, src)
    if language == "haskell":
        return haskell_imports(statement, src)
    return rust_use(one_line(statement, src))


def scala_imports(statement: Node, src: bytes) -> list[tuple[str, str, str]]:
    """`import a.b.C, d._, e.{F, G => H, I as J, K => _, given}` → (module, name, alias)
    triples: (a.b, C, C), (d, *, *), (e, F, F), (e, G, H), (e, I, J), (e, *, *); a wildcard
    (`_`, `*`, `given`) brings every name, `K => _` hides K."""
    out: list[tuple[str, str, str]] = []
    path: list[str] = []
    for child in [*statement.children, None]:  # None: the end, as a comma
        if child is not None and child.type == "identifier":
            path.append(one_line(child, src))
            continue
        module = ".".join(path)
        if child is not None and child.type == "namespace_wildcard":
            out.append((module, "*", "*"))
        elif child is not None and child.type == "namespace_selectors":
            for chosen in child.named_children:
                name = one_line(chosen.child_by_field_name("name") if "renamed" in chosen.type else chosen, src)
                alias = one_line(chosen.child_by_field_name("alias"), src) if "renamed" in chosen.type else name
                if chosen.type == "namespace_wildcard":
                    out.append((module, "*", "*"))
                elif alias != "_" and chosen.type in ("identifier", "arrow_renamed_identifier", "as_renamed_identifier"):
                    out.append((module, name, alias))
        elif child is None or child.type == ",":
            if path:
                out.append((".".join(path[:-1]), path[-1], path[-1]))
        else:
            continue
        path = []
    return out


def solidity_imports(directive: Node, src: bytes) -> list[tuple[str, str, str]]:
    """`import {A, B as C} from "./x.sol"` → ("./x.sol", A, A), ("./x.sol", B, C); `import
    "./x.sol"` → ("./x.sol", *, ""): every name; `import * as M from "./x.sol"` or `import
    "./x.sol" as M` → ("./x.sol", "", M): the file as a module."""
    source = directive.child_by_field_name("source")
    module = one_line(source, src).strip("\"'") if source is not None else ""
    names: list[list[str]] = []
    for at, child in enumerate(directive.named_children):
        field = directive.field_name_for_named_child(at)
        if field == "import_name":
            names.append([one_line(child, src)] * 2)
        elif field == "alias" and names:
            names[-1][1] = one_line(child, src)
        elif field == "alias":
            return [(module, "", one_line(child, src))]
    return [(module, name, alias) for name, alias in names] or [(module, "*", "")]


def rust_use(tree: str) -> list[tuple[str, str, str]]:
    """`a::b::{C, d::E as F, self}` → (module, name, alias) triples: (a::b, C, C), (a::b::d, E, F),
    (a, b, b)."""
    out: list[tuple[str, str, str]] = []

    def expand(prefix: str, part: str) -> None:
        part = part.strip()
        brace = part.find("{")
        if brace != -1 and part.endswith("}"):
            head = prefix + part[:brace]
            depth, start = 0, brace + 1
            for i in range(brace + 1, len(part) - 1):
                ch = part[i]
                depth += ch == "{"
                depth -= ch == "}"
                if ch == "," and depth == 0:
                    expand(head, part[start:i])
                    start = i + 1
            expand(head, part[start:len(part) - 1])
            return
        if part == "self":  # `a::b::{self}` imports the module a::b itself
            module, _, name = prefix.strip(":").rpartition("::")
            out.append((module, name, name))
            return
        part = part.strip()
        if not part:
            return
        path, _, alias = part.partition(" as ")
        full = (prefix + path.strip()).strip(":").replace(" ", "")
        module, _, name = full.rpartition("::")
        out.append((module, name, alias.strip() or name))

    expand("", tree)
    return out


def haskell_imports(statement: Node, src: bytes) -> list[tuple[str, str, str]]:
    """Haskell: `import Kit.Util` brings every name Kit/Util.hs exports, unqualified and as
    `Kit.Util.f`; `import qualified Data.Map as M` only `M.f`; `import Data.List (sortBy)` the
    names listed (and `Data.List.sortBy`); `hiding (f)` every name but those (read as every
    name); `as K` renames the qualifier."""
    module_node = statement.child_by_field_name("module")
    if module_node is None:
        return []
    module = one_line(module_node, src)
    alias_node = statement.child_by_field_name("alias")
    alias = one_line(alias_node, src) if alias_node is not None else module
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
            found.append((module, one_line(name, src), one_line(name, src)))
    return found
