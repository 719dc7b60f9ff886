"""References out of a parsed file: calls, imports, base classes, via per-language queries.

Each language with a graph has `queries/<language>.scm`, a tree-sitter query (a line
`; inherits: other` puts `other.scm` in front of it) whose captures
say what a node is: `@call.name` (with `@call.receiver` for `obj.name(...)`),
`@import.module` (with `@import.name` / `@import.alias`; Rust's, Scala's, Solidity's and Haskell's
`@import.tree` is a whole `use` tree or `import` statement), `@extends.name`, `@implements.name`, and what a name holds, kept for the names
some call is made on: `@type.var` (or `@type.attr`, an attribute of `self` or `this`) with
`@type.name` (an annotation), `@type.class` or `@type.new` (a class made) or `@type.literal`
is a `type` reference, the class by name and the variable as qualifier, so that
`ctx.invoke()` after `ctx: Context` reaches `Context.invoke`; a variable given a function's
result (`@type.new` not a class) is a `result` reference (the call's name and receiver, the
variable as alias), one given another name (`@type.same`: `self.pool = pool`) a `same`
reference, a function's return type (`@returns.name`) a `returns` reference of the class,
scoped to it, a loop's variable (`@item.var` over `@item.of`) an `item` reference (`_item`),
and a TypeScript callback's untyped parameter (`@param.fn` given to `@param.callee`) a
`param` reference (`_callback`); a Python annotation's `type` or `returns` reference says in
its alias what the container holds (`elements_of`). `mindex.graph_holds` reads them. Every
reference records the innermost definition it sits in (its scope), so `Session.send` can be
asked what it calls and who calls it. Resolution to definitions happens at query time
(`mindex.graph`), when every file of the index is known.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mindex.languages import OVERLOADED, PYTHON_BUILTIN_CLASSES, Lang
from mindex.models import RECEIVER_CHARS, Reference as Ref
from mindex.parse.code import CLASS_KINDS, Definition, Parsed, one_line
from mindex.parse.imports import statement_imports

if TYPE_CHECKING:
    from tree_sitter import Node

_CALLS = frozenset({"method_invocation", "invocation_expression", "call_expression", "object_creation_expression",
                    "new_expression"})
PHP_SELF = {"$this": "this", "static": "self", "parent": "super"}  # as the graph reads `this.`, `self.`, `super.`
_POWERSHELL_SCOPE = re.compile(r"^(?:script|global|private|local):", re.IGNORECASE)  # `$script:x`: x
PERL_SELF = frozenset({"$self", "$class", "shift", "__PACKAGE__"})  # `$self->m()`, `shift->m()`: the package's own
HEIRS = CLASS_KINDS | {"trait", "protocol", "record"}  # what a supertype is written for
# Languages that declare a name's class as Java does (`Gson gson`, `c: Client`; `java_type`),
# whose classes' fields their methods and subclasses call on.
DECLARED = frozenset({"java", "groovy", "csharp", "kotlin", "swift", "dart"})


def _written(src: bytes, start: int, end: int) -> str:
    """The source between two offsets on one line, its runs of white space as one space: a
    receiver where the grammar has no node for it (MATLAB's `a.b.f(x)`, Dart's chains); read
    up to four receivers' length, as a receiver is kept to one."""
    return " ".join(src[start:min(end, start + 4 * RECEIVER_CHARS)].decode("utf-8", "replace").split())


def _scopes(defs: list[Definition], lines: int) -> list[str]:
    """For each 0-based line, the qualified name of the innermost definition holding it."""
    painted = [""] * (lines + 1)
    for d in sorted(defs, key=lambda d: (d.start_line, -d.end_line)):
        if d.kind == "constant":
            continue
        first, last = d.start_line - 1, min(d.end_line, lines + 1)
        painted[first:last] = [d.qualname] * max(0, last - first)
    return painted


def _arity(name: Node) -> str:
    """How many arguments the call whose name is `name` passes ('' when its call is not found):
    Java, C#, Kotlin and C++ choose among methods of one name by it."""
    node = name.parent
    for _ in range(3):
        if node is None or node.type in _CALLS:
            break
        node = node.parent
    if node is None or node.type not in _CALLS:
        return ""
    args = node.child_by_field_name("arguments") or next(
        (c for c in node.named_children if c.type in ("value_arguments", "argument_list")), None)
    count = sum("comment" not in c.type for c in args.named_children) if args is not None else 0
    outer = node.parent  # Kotlin's trailing lambda: `run(1) { }` is a call of `run(1)` and the lambda
    for holder in (node, outer) if outer is not None and outer.type == "call_expression" else (node,):
        count += sum(c.type == "annotated_lambda" for c in holder.named_children)
    return str(count)


def _heir(defs: list[Definition], line: int) -> str:
    """The class whose supertype is written on `line` (not a method on the same line:
    `impl From<u8> for M { fn from(..) }`)."""
    holding = [d for d in defs if d.kind in HEIRS and d.start_line <= line <= d.end_line]
    return max(holding, key=lambda d: (d.start_line, -d.end_line)).qualname if holding else ""


def references(tree: Parsed, defs: list[Definition]) -> list[Ref]:
    """Every reference in the tree, in file order."""
    root, src, lang = tree.root, tree.src, tree.lang
    matches = tree.matches[1]
    if not matches:
        return []
    scopes = _scopes(defs, root.end_point[0] + 1)
    found: list[Ref] = []
    held: list[tuple[dict[str, Node], int, str]] = []
    items: list[Ref] = []
    passed: list[Ref] = []  # Haskell's plain names passed on (`map norm xs`): calls if the file knows them
    for caps in matches:
        first = {key: nodes[0] for key, nodes in caps.items() if nodes}
        anchor = first.get("call.name") or next(iter(first.values()))  # a chain's `.f(` on a line of its own
        line = anchor.start_point[0] + 1
        scope = scopes[line - 1] if line - 1 < len(scopes) else ""
        if "call.name" in first:
            receiver, name = one_line(first.get("call.receiver"), src), one_line(first["call.name"], src)
            if len(receiver) > RECEIVER_CHARS:
                receiver = receiver[:RECEIVER_CHARS]
            if lang.name == "php":  # `$this->f()`, `parent::f()`, `$c->pool->f()` as `c.pool`; `new \A\B()`
                receiver = PHP_SELF.get(receiver) or re.sub(r"\$(?=\w)", "", receiver.replace("->", "."))
                name = name.rsplit("\\", 1)[-1]
            elif lang.name == "ruby" and "::" in name:  # `A::B.new`: the class B
                name = name.rsplit("::", 1)[-1]
            elif lang.name == "perl":  # `&f()`; `Mojo::Util::trim(...)`: trim of Mojo::Util
                package, _, name = name.lstrip("&").rpartition("::")
                receiver = package or ("self" if receiver in PERL_SELF else receiver)
            elif lang.name == "julia" and (holder := first["call.name"].parent) is not None \
                    and holder.type == "macro_identifier":  # `@test x` calls the macro `@test`, not `test`
                name = "@" + name
            elif lang.name == "matlab" and (call := first["call.name"].parent) is not None \
                    and call.parent is not None and call.parent.type == "field_expression":
                receiver = _written(src, call.parent.start_byte, call.start_byte).rstrip(". ")[:RECEIVER_CHARS]  # `a.b.f(x)`
            elif lang.name == "dart" and not receiver and (link := first["call.name"].parent) is not None \
                    and (step := link.parent) is not None and step.type == "selector":  # `a.b(x).c()`: `a.b(x)`
                head = step
                while head.prev_sibling is not None and head.prev_sibling.type == "selector":
                    head = head.prev_sibling
                start = head.prev_sibling.start_byte if head.prev_sibling is not None else head.start_byte
                chain = re.sub(r"\s*(\??\.)\s*", r"\1", _written(src, start, step.start_byte))
                receiver = chain.rstrip("?.")[:RECEIVER_CHARS]  # `events\n  .map(f)` as `events.map(f)`
            elif lang.name == "haskell":  # `M.f x`: the module's node holds its dot
                receiver = receiver.rstrip(".")
            elif lang.name == "powershell":  # `$this.M()` as `this.M()`, `[Kit.T]::M()` as `Kit.T.M()`
                receiver = _POWERSHELL_SCOPE.sub("", receiver.strip("[]").lstrip("$"))
                if first["call.name"].type == "type_spec":  # `[Kit.Box[int]]::new()` makes a Box
                    name = name.split("[", 1)[0].rsplit(".", 1)[-1]
            arity = _arity(first["call.name"]) if lang.name in OVERLOADED else ""
            (passed if "_passed" in first else found).append(Ref("call", name, receiver, arity, line, scope))
        elif "import.tree" in first:
            statement = first["import.tree"]
            for module, name, alias in statement_imports(lang.name, statement, src):
                found.append(Ref("import", name, module, alias, line, scope))
        elif "import.module" in first:
            found.append(_import(lang, first, line, scope, src))
        elif "alias.of" in first:
            found.extend(_aliases(first["alias.of"], line, src))
        elif "returns.name" in first:
            annotation = one_line(first["returns.name"], src)
            own = _RUST_REF.sub("", annotation).strip() in SELF_TYPES  # `-> Self`, `: static`: its own class
            if returned := "Self" if own else type_written(annotation, lang.name):  # and what it holds: `-> list[Param]`
                found.append(Ref("returns", returned, "", elements_of(annotation) if lang.name == "python" else "",
                                 line, scope))
        elif ("type.var" in first and ("_var" not in first or one_line(first["_var"], src) == "var")) or (
                "type.attr" in first and ("_self" not in first or one_line(first["_self"], src) == "self")):
            held.append((first, line, scope))  # once every call's receiver is known
        elif "item.of" in first:
            if (item := _item(first, line, scope, src)) is not None:
                items.append(item)
        elif "param.fn" in first:
            items.extend(_callback(first, scopes, src))
        elif "extends.name" in first or "implements.name" in first:
            kind = "extends" if "extends.name" in first else "implements"
            supertype = one_line(first[f"{kind}.name"], src)
            name = re.split(r"\.|::|\\", supertype.split("{")[0] if lang.name == "julia" else supertype)[-1]  # `T{X}`
            found.append(Ref(kind, name, "", "", line, scope if lang.name == "python" else _heir(defs, line) or scope))
    if held or items:  # what a name holds, for the names some call is made on only
        receivers = {r.qualifier for r in found if r.kind == "call"}
        for item in items:  # a loop's variable (and then what it iterates), a callback's parameter
            if item.qualifier in receivers:
                found.append(item)
                receivers.add(item.name)
        kept: dict[Ref, None] = {}  # in order, `x: list = []` once
        this = "this." if lang.name in TYPED_JS or lang.name == "php" else "self."
        named = [(one_line(first["type.var"], src).lstrip("$") if "type.var" in first else this + one_line(first["type.attr"], src),
                  first, line, scope) for first, line, scope in held]
        receivers.update(one_line(first["type.same"], src) for variable, first, _, _ in named  # `self.pool = pool`
                         if "type.same" in first and variable in receivers)
        fields = {receiver.rpartition(".")[2] for receiver in receivers if "." in receiver}  # `v.logger.Info()`:
        receivers.update([receiver.partition(".")[0] for receiver in receivers if "." in receiver])  # v, and its field
        # a Java, C# or Kotlin class's fields, which its subclasses' methods call on too
        classes = {d.qualname for d in defs if d.kind in HEIRS} if lang.name in DECLARED else set()
        for variable, first, line, scope in named:
            if variable in receivers or "self." + variable in receivers or scope in classes or (  # a class body's `pool: Pool` too
                    "type.attr" in first and variable.partition(".")[2] in fields):
                kept.update(dict.fromkeys(_holds(first, variable, line, scope, src, lang.name)))
        written = {(r.qualifier, r.line) for r in kept if r.kind == "type"}  # `x: T = f()`: T
        holding = {(r.qualifier, r.line) for r in kept if r.kind == "type" and r.alias}  # `x: list[T] = []`: once
        found.extend(r for r in kept if ((r.alias or (r.qualifier, r.line) not in holding) if r.kind == "type"
                                         else (r.alias, r.line) not in written))
    if passed:  # a function of the file, or one it imports by name; any other name is a value (a parameter)
        known = {d.name for d in defs} | {r.alias for r in found if r.kind == "import" and r.name not in ("", "*")}
        found += [r for r in passed if r.name in known]
    if lang.name in ("elixir", "julia"):  # `def list(opts) do`, `f(x) = ...`: a head is a call node, and no call
        heads = {(d.start_line, d.name.lstrip("@")) for d in defs}
        found = [r for r in found if r.kind != "call" or (r.qualifier and lang.name == "elixir")
                 or (r.line, r.name) not in heads]
    found.sort(key=lambda r: r.line)
    return found


def _holds(first: dict[str, Node], variable: str, line: int, scope: str, src: bytes, language: str) -> list[Ref]:
    """The `type` reference of what an annotation, a class called or a literal gives a name,
    or the `result` reference of a function called (what it returns is asked of it later).
    In Go and JavaScript a call is a function's (a class is made by `new` or a literal), and
    a type is written as one (`go_type`, `ts_type`)."""
    python = language == "python"
    if "type.member" in first:  # Dart's `final r = Router.of(x)`: no call node, the call's parts
        return [Ref("result", one_line(first["type.member"], src), one_line(first["type.head"], src)[:RECEIVER_CHARS],
                    variable, line, scope)]
    if "type.new" in first:
        callee = first["type.new"]
        if python and (bound := class_named(one_line(callee, src))):
            return [Ref("type", bound, variable, "", line, scope)]
        field, operand = _MEMBER.get(callee.type, (None, None))
        called = one_line(callee.child_by_field_name(field) if field else callee, src)
        receiver = one_line(callee.child_by_field_name(operand), src) if operand else ""
        return [Ref("result", called, receiver[:RECEIVER_CHARS], variable, line, scope)]
    if "type.same" in first:  # `self.pool = pool`: what the name holds there
        return [Ref("same", one_line(first["type.same"], src), variable, "", line, scope)]
    if "type.class" in first:
        written = one_line(first["type.class"], src)
        bound = (class_named(written) if python else written.rsplit(".", 1)[-1] if language in TYPED_JS or language == "go"
                 else type_written(written, language))
        if python and written == "open":  # `with open(p) as f`: what the builtin returns
            return [Ref("result", written, "", variable, line, scope)]
        return [Ref("type", bound, variable, "", line, scope)] if bound else []
    literal = first.get("type.literal")
    written = one_line(first.get("type.name"), src)
    bound = LITERALS.get(literal.type) if literal is not None else type_written(written, language)
    held = elements_of(written) if python and written else ""  # what it holds: `xs: list[Param]`
    return [Ref("type", bound, variable, held, line, scope)] if bound else []


def _callback(first: dict[str, Node], scopes: list[str], src: bytes) -> list[Ref]:
    """The `param` references of a function passed to a call (TypeScript): for each of its
    parameters without a type, the called function as name (`operate`, `source.subscribe`),
    the parameter as qualifier and `<argument>.<parameter>` as alias (`0.1`: the second
    parameter of the first argument); `graph_holds` reads the type from the called function's
    signature."""
    function = first["param.fn"]
    arguments = function.parent
    callee = one_line(first["param.callee"], src)
    if arguments is None or len(callee) > RECEIVER_CHARS:
        return []
    at = next(n for n, node in enumerate(arguments.named_children) if node.id == function.id)
    line = function.start_point[0] + 1
    scope = scopes[line - 1] if line - 1 < len(scopes) else ""
    single = function.child_by_field_name("parameter")  # `x => x.f()`
    parameters = function.child_by_field_name("parameters")
    listed = [single] if single is not None else parameters.named_children if parameters is not None else []
    found = []
    for n, parameter in enumerate(listed):
        name = parameter if parameter.type == "identifier" else parameter.child_by_field_name("pattern")
        if name is not None and name.type == "identifier" and parameter.child_by_field_name("type") is None:
            found.append(Ref("param", callee, one_line(name, src), f"{at}.{n}", line, scope))
    return found


# Builtins that give back the items of the iterable they are given, in another order or form
_SAME_ITEMS = frozenset({"sorted", "reversed", "list", "tuple", "set", "frozenset", "iter"})


def _item(first: dict[str, Node], line: int, scope: str, src: bytes) -> Ref | None:
    """The `item` reference of a loop's variable: the iterable as name (`xs`, `self.xs`, or a
    function called: `self.get_params`), the variable as qualifier, and as alias how the items
    are taken: '' (iterated), `values` or `keys` (of a mapping), `()` (of what the call
    returns). `k, v in d.items()` gives `v` the values, `i, x in enumerate(xs)` `x` the items."""
    of = first["item.of"]
    if "item.pair" in first:
        names = first["item.pair"].named_children
        if len(names) != 2 or any(n.type != "identifier" for n in names):
            return None
        variable = one_line(names[1], src)
        function, arguments = of.child_by_field_name("function"), of.child_by_field_name("arguments")
        if function is None or arguments is None:
            return None
        if function.type == "attribute" and one_line(function.child_by_field_name("attribute"), src) == "items" \
                and not arguments.named_children:
            taken = _iterated(function.child_by_field_name("object"), src)
            return Ref("item", taken[0], variable, "values", line, scope) if taken and not taken[1] else None
        if one_line(function, src) == "enumerate" and arguments.named_children:
            taken = _iterated(arguments.named_children[0], src)
            return Ref("item", taken[0], variable, taken[1], line, scope) if taken else None
        return None
    taken = _iterated(of, src)
    return Ref("item", taken[0], one_line(first["item.var"], src), taken[1], line, scope) if taken else None


def _iterated(node: Node | None, src: bytes) -> tuple[str, str] | None:
    """(name, how its items are taken) of an iterable (see `_item`); None for others."""
    if node is None:
        return None
    if node.type == "identifier" or (node.type == "attribute" and one_line(node, src).startswith("self.")
                                     and one_line(node, src).count(".") == 1):
        return one_line(node, src), ""
    if node.type != "call":
        return None
    function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    if function.type == "attribute" and one_line(function.child_by_field_name("attribute"), src) in ("values", "keys"):
        taken = _iterated(function.child_by_field_name("object"), src)
        if taken and not taken[1] and not arguments.named_children:
            return taken[0], one_line(function.child_by_field_name("attribute"), src)
        return None
    if function.type == "identifier" and one_line(function, src) in _SAME_ITEMS and arguments.named_children:
        return _iterated(arguments.named_children[0], src)
    if function.type in ("identifier", "attribute"):
        called = one_line(function, src)
        return (called, "()") if len(called) <= RECEIVER_CHARS else None
    return None


def type_written(written: str, language: str) -> str | None:
    """The class a written type names, in the language's own syntax (`go_type`, `ts_type`,
    Python's `class_of`)."""
    if language in DECLARED:
        return java_type(written)
    if language == "php":
        return java_type(written.lstrip("?").rsplit("\\", 1)[-1])
    if language == "rust":  # `&'a mut Builder<T>`, `kit::Builder`
        return java_type(_RUST_REF.sub("", written).replace("::", "."))
    return go_type(written) if language == "go" else ts_type(written) if language in TYPED_JS else class_of(written)


TYPED_JS = frozenset({"javascript", "typescript", "tsx", "vue", "svelte"})  # _js_calls.scm's languages
# A called member's name and its object, by the node that calls it.
_MEMBER = {"attribute": ("attribute", "object"), "selector_expression": ("field", "operand"),
           "method_invocation": ("name", "object"),
           "member_expression": ("property", "object")}
# The builtin a literal, `*args` or `**kwargs` makes; with the builtins an annotation may
# name, what a call on such a name does not reach in the index.
LITERALS = {"dictionary": "dict", "dictionary_comprehension": "dict", "list": "list", "list_comprehension": "list",
            "set": "set", "set_comprehension": "set", "string": "str", "list_splat_pattern": "tuple",
            "dictionary_splat_pattern": "dict"}
# typing's names of the builtin classes (as an annotation writes them: `t.Dict`, `List[str]`)
TYPING_ALIASES = {"Dict": "dict", "List": "list", "Set": "set", "FrozenSet": "frozenset", "Tuple": "tuple"}
_OPTIONAL = re.compile(r"(?:[\w.]+\.)?Optional\[(.*)\]")
_GENERIC = re.compile(r"([A-Za-z_][\w.]*)(?:\[.*\])?")


def class_of(annotation: str) -> str | None:
    """The class an annotation gives a name, for the calls made on it: `Session`, `"Session"`,
    `Optional[Session]`, `Session | None`, `mod.Session`, `Queue[int]` all give `Session` or
    `Queue`, `list[str]` gives `list`; None for a union of classes, `int | str`, or any other
    lower-case name."""
    single = _single(annotation)
    if single is None or not (found := _GENERIC.fullmatch(single)):
        return None
    module, _, name = found.group(1).rpartition(".")
    if name in TYPING_ALIASES and (module in ("t", "typing", "typing_extensions") or "[" in single):
        return TYPING_ALIASES[name]  # `t.Dict[str, Expr]` is a dict, whatever class Dict the project has
    return class_named(found.group(1)) if name != "Any" else None  # `x: Any` says nothing of x


_SEQUENCES = frozenset({"list", "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence",
                        "Iterable", "Iterator", "Collection", "AbstractSet", "MutableSet", "Generator", "AsyncIterator",
                        "AsyncIterable", "AsyncGenerator", "deque", "Deque", "Reversible"})
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict", "defaultdict",
                       "ChainMap"})
_CONTAINER = re.compile(r"([A-Za-z_][\w.]*)\[(.*)\]")


def elements_of(annotation: str) -> str:
    """What a Python container annotation holds, as `graph_holds` reads it for a loop over it:
    `E` for a sequence's items (`list[Param]`, `t.Iterator["Node"]`, `tuple[Param, ...]`),
    `K:V` for a mapping's keys and values (`dict[str, Transport | None]` gives
    `str:Transport`); '' for anything else (the alias of a `type` or `returns` reference)."""
    single = _single(annotation)
    if single is None or not (found := _CONTAINER.fullmatch(single)):
        return ""
    outer, args = found.group(1).rsplit(".", 1)[-1], _union(found.group(2), "[", "]", (), ",")
    if outer in ("tuple", "Tuple"):
        outer, args = ("list", args[:1]) if len(args) == 2 and args[1] == "..." else ("", [])
    if outer in _SEQUENCES and args:
        return class_of(args[0]) or ""
    if outer in _MAPPINGS and len(args) == 2:
        key, value = class_of(args[0]) or "", class_of(args[1]) or ""
        return f"{key}:{value}" if key or value else ""
    return ""


def _single(annotation: str) -> str | None:
    """The one type a Python annotation names once quotes, `Optional[...]` and `| None` are
    taken off (`"Optional[list[Param]]"` gives `list[Param]`); None for a union of several."""
    text = annotation.strip().strip("\"'").strip()
    optional = _OPTIONAL.fullmatch(text)
    kept = _union(optional.group(1) if optional else text, "[", "]", ("None", ""))
    return kept[0] if len(kept) == 1 else None


def _union(text: str, opening: str, closing: str, nothing: tuple[str, ...], between: str = "|") -> list[str]:
    """The parts of a union type (`A | None`) outside brackets, bar those that say nothing (or
    of a list of type arguments, `between` a comma)."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(text + between):
        depth += char == opening
        depth -= char == closing
        if char == between and depth == 0:
            parts.append(text[start:at].strip().strip("\"'").strip())
            start = at + 1
    return [part for part in parts if part not in nothing]


_TS_GENERIC = re.compile(r"([A-Za-z_$][\w$.]*)(?:<(.*)>)?")


def ts_type(written: str) -> str | None:
    """The class or interface a TypeScript type names (`Subscriber`, `ns.Subscriber<T>`,
    `Subscriber | undefined`, `Promise<Subscriber>`, which an `await` unwraps); None for arrays,
    object and function types, and unions of several."""
    text = written.strip()
    for _ in range(4):  # `Promise<Promise<T>>` at most a few times over, however deep a file nests them
        kept = _union(text, "<", ">", ("null", "undefined", "void", ""))
        found = _TS_GENERIC.fullmatch(kept[0]) if len(kept) == 1 else None
        if found is None:
            return None
        if found.group(1) != "Promise" or not found.group(2):
            return found.group(1).rsplit(".", 1)[-1]
        text = found.group(2).strip()
    return None


# What a method returns when it returns its own class's kind, as the graph reads it (`-> Self`,
# PHP's `: static`), and a Rust reference's marks (`&'a mut `).
SELF_TYPES = frozenset({"Self", "self", "static", "this"})
_RUST_REF = re.compile(r"^\s*&\s*(?:'\w+\s+)?(?:mut\s+)?")
_JAVA_TYPE = re.compile(r"(?:[\w$]+\.)*([A-Z][\w$]*)(?:<.*>)?")


def java_type(written: str) -> str | None:
    """The class a Java type names (`Gson`, `com.google.gson.Gson`, `List<Foo>`, `Map.Entry<K, V>`
    give `Gson`, `Gson`, `List`, `Entry`); None for primitives, arrays and `var`."""
    found = _JAVA_TYPE.fullmatch(written.strip().removesuffix("?"))  # Kotlin's, Swift's, C#'s `Foo?` too
    return found.group(1) if found else None


def go_type(written: str) -> str | None:
    """The named type a Go type expression gives (`*Command`, `pkg.Command`, `List[T]`: a
    function's results `(*Command, error)` give their first when the others are errors);
    None for slices, maps, channels, functions and literal structs or interfaces."""
    text = written.strip()
    if text.startswith("(") and text.endswith(")"):
        parts = [part.split()[-1] if len(part.split()) == 2 and part.split()[0].isidentifier() else part.strip()
                 for part in text[1:-1].split(",")]  # `(r *Result, err error)`: the types
        if not parts or any(part != "error" for part in parts[1:]):
            return None
        text = parts[0]
    text = text.lstrip("*&")
    found = None if text.startswith(("[", "map[", "chan", "func", "interface", "struct")) else _GENERIC.fullmatch(text)
    return found.group(1).rsplit(".", 1)[-1] if found else None


def class_named(name: str) -> str | None:
    """The last part of a dotted name when it is spelled as a class is (a capital first, after
    any underscores: `_ClassBuilder`), or is a builtin class (`dict`)."""
    last = name.rsplit(".", 1)[-1]
    return last if (last.lstrip("_")[:1].isupper() and last.isidentifier()) or last in PYTHON_BUILTIN_CLASSES else None


def _aliases(statement: Node, line: int, src: bytes) -> list[Ref]:
    """`a = b = name` at a module's top: an `alias` reference (name, "", alias) for each name
    bound to `name`, when the chain ends in a plain name."""
    bound: list[str] = []
    node: Node | None = statement
    while node is not None and node.type == "assignment":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or left.type != "identifier" or node.child_by_field_name("type") is not None:
            return []
        bound.append(one_line(left, src))
        node = right
    if node is None or node.type != "identifier":
        return []
    name = one_line(node, src)
    return [Ref("alias", name, "", alias, line, "") for alias in bound if alias != name]


def _import(lang: Lang, first: dict[str, Node], line: int, scope: str, src: bytes) -> Ref:
    module = one_line(first["import.module"], src).strip("\"'<>`")
    name = one_line(first.get("import.name"), src)
    alias = one_line(first.get("import.alias"), src)
    if lang.name == "python":
        if not name and not alias:
            alias = module.split(".")[0]  # `import a.b` binds `a`
        alias = alias or name
    elif lang.name == "go":
        alias = alias or module.rsplit("/", 1)[-1]
    elif lang.name in ("java", "kotlin", "groovy"):
        holder = first["import.module"].parent
        if holder is not None and any(c.type == "asterisk" for c in holder.children):
            name = "*"
        else:
            module, _, name = module.rpartition(".")
        alias = name
    elif lang.name in ("c", "cpp"):
        alias = ""
    elif lang.name == "php":  # `use A\B\C as D`
        module, _, name = module.lstrip("\\").rpartition("\\")
        alias = alias or name
    elif lang.name == "dart":  # `import 'x.dart' as x`; without a prefix it brings every name
        name = "" if alias else "*"
    elif lang.name == "ocaml":  # `open Foo`, `include Foo`: every name; `module U = Uri`: the module as U
        name = "" if alias else "*"
    elif lang.name == "bash":  # `source lib/util.sh`: every function the script defines
        name, alias = "*", ""
    elif lang.name == "julia" and not name:  # `include("x.jl")`, `using A`: every name (and A); `import A`: A
        holder = first["import.module"].parent
        every = module.endswith(".jl") or (holder is not None and holder.type == "using_statement")
        name, alias = ("*" if every else ""), (alias or ("" if module.endswith(".jl") else module.rpartition(".")[2]))
    elif lang.name == "powershell":  # `. $PSScriptRoot\\lib.ps1`, `Import-Module ./Kit.psm1`: every function
        module, name, alias = module.replace("\\", "/"), "*", ""
    elif lang.name == "perl":  # `use Mojo::Util`: what it exports (read as all its subs), and `Mojo::Util::f()`
        name, alias = "*", module
    elif lang.name == "elixir":  # `alias MyApp.Repo`: the module, as its last part
        alias = alias or module.rpartition(".")[2]
    elif lang.name == "ruby":  # `require 'a/b'`: a file, no name; `require_relative` beside this one
        relative = one_line(first.get("_require"), src) == "require_relative"
        module, alias = ("./" + module if relative and not module.startswith(".") else module), ""
    else:
        alias = alias or name
    return Ref("import", name, module, alias, line, scope)
