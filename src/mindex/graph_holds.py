"""What a name holds where a call is made on it (Python, Go, TypeScript and JavaScript), for
the code graph (`mindex.graph`).

A file's `type` references say a name holds a class from a line on (`ctx: Context`,
`s = Session()`, `d = {}`), its `result` references that it holds what a call returns
(`r = self.send()`), its `same` references that an attribute of `self` holds what a name
does (`self.pool = pool`), `returns` references what a function says it returns
(`-> "Response"`), `item` references what a loop's variable takes of what it iterates
(`for t in self._mounts.values()`), read with what the iterable's annotation says it holds,
and `param` references which parameter of which argument a callback's parameter is, read in
the signature of the function the callback is passed to (TypeScript); see
`mindex.parse.refs`. The graph asks `bound` for a call's receiver (a name, `self.x`, a
name's field: `v.logger`, or a call: `c.Root()`, `new Builder()`), and `typed` for the method
of the class found.
"""

from __future__ import annotations

import re
from typing import Protocol

from mindex.languages import OVERLOADED, PYTHON_BUILTIN_CLASSES
from mindex.models import RECEIVER_CHARS
from mindex.graph_types import CLASSLIKE, IMPLICIT_THIS, SELF_WORDS, CallRef, Resolution, SymbolRef, fitting, owner_of
from mindex.store.base import Store

# From a line on, a name holds: a class (written: the `type` reference, whose alias says what
# it holds in turn), or a call's result, or another name's value, or a loop's item.
Binding = tuple[int, str | None, CallRef | None]
HOLDS_KINDS = ("type", "result", "same", "returns", "item", "param")  # the references this module reads
# Python's built-in functions whose result no file of an index makes (a file, a list, an iterator,
# a string: `str(x).rstrip()`, `repr(x)`), its builtin classes among them
BUILT_IN_RESULTS = frozenset({"open", "sorted", "enumerate", "zip", "range", "map", "filter", "reversed", "vars",
                              "globals", "locals", "repr", "format", "chr", "hex", "oct", "bin",
                              *PYTHON_BUILTIN_CLASSES})


# What every Java object's `getClass()` and `toString()` return, whatever class it is (no
# override changes it): a call on their result is the JDK's (`e.getClass().getName()`).
JAVA_OBJECT_RESULTS = {"getClass": "Class", "toString": "String"}
# Flutter's provider idiom, which gives the T it is asked for: `context.read<CounterBloc>()`,
# `context.watch<T>()` (`BlocProvider.of<T>(context)` the grammar reads as comparisons)
DART_PROVIDED = re.compile(r"[\w.]+\.(?:read|watch)<(\w+)>\(\)")

# Functions outside the index that give back their argument, or a copy of it (`copy.copy(self)`)
SAME_AS_ARGUMENT = frozenset({"copy", "deepcopy", "cast", "replace"})


def _made_outside(result: CallRef, called: Resolution, language: str | None) -> bool:
    """Whether a `result` reference's call is made outside the index, so that no file of the
    index makes what it returns: a class or function imported from outside (`todo = deque()`,
    `data = json.loads(text)`), or a builtin (`f = open(path)`); not a method of what such a
    call made (`todo.popleft()` gives back what the index put in), nor a function that gives
    back its argument."""
    if not result.qualifier and result.name in BUILT_IN_RESULTS and language == "python":
        return all(confidence < 0.9 for _, confidence in called.targets)  # no `open` of this file or its imports
    return (not called.targets and called.reason.startswith("outside the index:") and "imported from" in called.reason
            and result.name not in SAME_AS_ARGUMENT)


_NEW = re.compile(r"new\s+([A-Za-z_][\w.]*)")
_LAST_STEP = re.compile(r"\s*(?:\?\.|::|->|\.)\s*(\w+)\Z")


def call_of(receiver: str) -> tuple[str, str, str] | None:
    """(receiver, name, how many arguments) of the call a receiver is, as a call reference
    spells them: `c.Root()` is ("c", "Root", "0"), `a::b::f(x)` ("a::b", "f", "1"), `build()`
    ("", "build", "0"), `self.x.get(")", y)` ("self.x", "get", "2"); `new kit.Builder()` is
    ("new", "kit.Builder", "0"). None for anything else: a receiver the parser cut short (its
    end may be a call the chain goes on from), generic arguments, an index or a lambda."""
    if len(receiver) >= RECEIVER_CHARS:
        return None
    opened, depth, quote, commas = -1, 0, "", 0
    for at, ch in enumerate(receiver):
        if quote:
            quote = "" if ch == quote and receiver[at - 1] != "\\" else quote
        elif ch in "\"'`":
            quote = ch
        elif ch in "([{":
            if depth == 0:
                opened, commas = (at, 0) if ch == "(" else (opened, commas)
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 1:
            commas += 1
    if depth or quote or opened < 0:
        return None
    if opened == 0:  # PHP's `(new Builder())->name()`: what the parentheses hold
        return call_of(receiver[1:-1].strip()) if receiver.startswith("(") else None
    callee, arity = receiver[:opened].strip(), str(commas + 1 if receiver[opened + 1:-1].strip() else 0)
    if made := _NEW.fullmatch(callee):
        return "new", made[1], arity
    split = _LAST_STEP.search(callee)  # `a?.b()`, Rust's and C++'s paths, PHP's arrows
    if split is None:
        return ("", callee, arity) if callee.isidentifier() else None
    qualifier, name = callee[:split.start()].strip(), split[1]
    return (qualifier, name, arity) if name.isidentifier() and qualifier else None


def outside(bound: str) -> bool:
    """Whether what `Holds.bound` says a name holds is the result of a call outside the index."""
    return bound.endswith("()")


class Graph(Protocol):
    """What `Holds` reads of the code graph."""

    store: Store
    files: dict[int, tuple[str, str, str | None]]  # each file's source, path and language

    def refs(self, doc_id: int, kind: str) -> list[CallRef]: ...

    def resolve(self, ref: CallRef) -> Resolution: ...

    def named(self, short: str) -> list[SymbolRef]: ...

    def bases(self, doc_id: int, owner: str) -> list[str]: ...


class Holds:
    """The classes names hold, read a file at a time when first asked."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        # each file's bindings by (scope, name), in line order, and its classes' names
        self._files: dict[int, dict[tuple[str, str], list[Binding]]] = {}
        self._class_names: dict[int, set[str]] = {}
        self._names: dict[int, set[str]] = {}
        # each file's bindings of `self.x` (and of a class body's names) by (class, x)
        self._attributes: dict[int, dict[tuple[str, str], list[Binding]]] = {}
        self._working: set[tuple[int, str, str, str]] = set()  # results being worked out
        self._inherited: dict[tuple[int, str, str], Binding | None] = {}  # (file, class, field): its binding

    def _file(self, doc_id: int) -> dict[tuple[str, str], list[Binding]]:
        if doc_id not in self._files:
            bindings: dict[tuple[str, str], list[Binding]] = {}
            for call in self.graph.refs(doc_id, "result"):
                bindings.setdefault((call.scope, call.alias), []).append((call.line, None, call))
            for same in self.graph.refs(doc_id, "same"):
                bindings.setdefault((same.scope, same.qualifier), []).append((same.line, None, same))
            for typed in self.graph.refs(doc_id, "type"):
                bindings.setdefault((typed.scope, typed.qualifier), []).append((typed.line, typed.name, typed))
            for kind in ("item", "param"):
                for item in self.graph.refs(doc_id, kind):
                    bindings.setdefault((item.scope, item.qualifier), []).append((item.line, None, item))
            for held in bindings.values():  # on one line, a class written beats a result
                held.sort(key=lambda binding: (binding[0], binding[1] is not None))
            self._files[doc_id] = bindings
            # the names bound, and the attributes (`self.pool`'s `pool`, and a class body's names)
            self._names[doc_id] = {name for _, name in bindings}
            self._names[doc_id] |= {name.partition(".")[2] for name in self._names[doc_id] if "." in name}
        return self._files[doc_id]

    def classes(self, doc_id: int) -> set[str]:
        """The names of a file's classes (read when a scope is to be walked out of)."""
        if doc_id not in self._class_names:
            self._class_names[doc_id] = {row[2] for row in self.graph.store.symbol_rows("document_id", doc_id)
                                         if row[3] in CLASSLIKE}
        return self._class_names[doc_id]

    def bound(self, ref: CallRef) -> tuple[str, float] | None:
        """The class a call's receiver holds, and how surely, when it is a plain name that its
        function, one around it or the file's top level annotates, makes (1.0) or gives a
        call's result (a class body's names are not seen from its methods): the binding of the
        last such line at or before the call's, else the first. For `self.x`, `_attribute`."""
        receiver = ref.qualifier
        head, _, attribute = receiver.partition(".")
        if head in ("self", "this") and attribute.removeprefix("#").isidentifier():  # `this.#cache` too
            return self._attribute(ref, attribute)
        if head.isidentifier() and head not in SELF_WORDS and attribute.isidentifier():
            return self._field(ref, head, attribute)
        # `c.Root().ExecuteC()`; Kotlin's `f()!!.g()` and Swift's `f()?.g()` too, not Rust's
        # `f()?.g()` (its `?` takes what a Result holds)
        language = self.graph.files.get(ref.document_id, ("", "", None))[2]
        unwrapped = receiver.rstrip("!") if language == "rust" else receiver.rstrip("!?")
        if language == "dart" and (provided := DART_PROVIDED.fullmatch(unwrapped)):
            return provided[1], 0.9
        if unwrapped.endswith(")") and receiver not in SELF_WORDS and (called := call_of(unwrapped)) is not None:
            qualifier, name, arity = called
            if qualifier == "new":  # `new Builder(x).build()`: a Builder
                return name, 1.0
            if language == "java" and arity == "0" and name in JAVA_OBJECT_RESULTS:  # `e.getClass().getName()`
                return JAVA_OBJECT_RESULTS[name], 1.0
            overloaded = language in OVERLOADED  # of jsoup's `tag()` and `tag(Tag)`, the first
            return self._returned(CallRef(ref.document_id, "result", name, qualifier, "", ref.line, ref.scope),
                                  arity if overloaded else "")
        if not receiver.isidentifier() or receiver in SELF_WORDS:
            return None
        binding = self._binding(ref.document_id, receiver, ref.line, ref.scope)
        return self._said(binding) if binding is not None else None

    def _binding(self, doc_id: int, name: str, line: int, scope: str) -> Binding | None:
        """The binding of a plain name that holds at `line` of `scope` (see `bound`)."""
        bindings = self._file(doc_id)
        fields = self.graph.files.get(doc_id, ("", "", None))[2] in IMPLICIT_THIS  # Java's methods see its fields
        around = scope
        while name in self._names[doc_id]:
            held = bindings.get((scope, name))
            if held:
                before = [binding for binding in held if binding[0] <= line]
                return before[-1] if before else held[0]
            if not scope:
                break
            scope = owner_of(scope)
            while scope in self.classes(doc_id) and not fields:
                scope = owner_of(scope)
        return self._inherited_field(doc_id, around, name) if fields else None

    def _inherited_field(self, doc_id: int, scope: str, name: str, depth: int = 0) -> Binding | None:
        """A field a Java (C#, Kotlin, ...) class inherits: `stack`, declared by the class its
        class extends, three levels up at most."""
        owner = _class_around(scope, self.classes(doc_id))
        if not owner or depth > 2:
            return None
        key = (doc_id, owner, name)  # once each: fmt's hundreds of `formatter` classes made it exponential
        if key not in self._inherited:
            self._inherited[key] = None
            self._inherited[key] = next((found for base in self.graph.bases(doc_id, owner)
                                         for cls in self.classes_named(base)
                                         if (found := self._declared(cls.document_id, cls.name, name)
                                             or self._inherited_field(cls.document_id, cls.name, name, depth + 1))
                                         is not None), None)
        return self._inherited[key]

    def _declared(self, doc_id: int, cls: str, name: str) -> Binding | None:
        """The first binding of the field `name` that class `cls` of a file declares."""
        held = self._file(doc_id).get((cls, name))
        return held[0] if held else None

    def _said(self, binding: Binding) -> tuple[str, float] | None:
        """What one binding says a name holds, and how surely."""
        line, name, made = binding
        if made is None or made.kind == "type":
            return (name, 1.0) if name is not None else None
        if made.kind == "same":  # what the name it was given holds there
            return self.bound(CallRef(made.document_id, "call", "", made.name, "", line, made.scope))
        if made.kind == "item":
            return self._item(made)
        if made.kind == "param":
            return self._parameter(made)
        return self._returned(made)

    def classes_named(self, name: str) -> list[SymbolRef]:
        """The classes (structs, interfaces, ...) the index defines by this name."""
        return [s for s in self.graph.named(name) if s.kind in CLASSLIKE and (
            s.name == name or (s.language in IMPLICIT_THIS and s.name.endswith("." + name)))]

    def _call(self, doc_id: int, name: str, receiver: str, line: int, scope: str, arity: str = "") -> Resolution:
        """What the call `receiver.name()` at that place reaches (with `arity` arguments, when known)."""
        return self.graph.resolve(CallRef(doc_id, "call", name, receiver, arity, line, scope))

    def _returned_items(self, called: Resolution) -> list[tuple[str, float]]:
        """What the definitions a call reaches at 0.5 or more say their results' items are, each
        as surely as its definition is reached."""
        return [(spec, confidence) for target, confidence in _sure(called) for spec in self._holding_returned(target)]

    def _attribute(self, ref: CallRef, attribute: str) -> tuple[str, float] | None:
        """The class `self.<attribute>` (`this.` in JavaScript) holds in the class around the
        call: what every binding the class's body and methods make of it says, when they agree."""
        held = self._attribute_bindings(ref.document_id, ref.scope, attribute)
        owner = _class_around(ref.scope, self.classes(ref.document_id))
        if not held:
            return self._property(owner, attribute)
        key = (ref.document_id, "self." + attribute, owner, "")
        if key in self._working:
            return None
        self._working.add(key)
        try:
            return _agreed([self._said(binding) for binding in held])
        finally:
            self._working.discard(key)

    def _field(self, ref: CallRef, head: str, field: str) -> tuple[str, float] | None:
        """The class `head.<field>` holds (`v.logger`, `client.pool`): the field of the class
        `head` holds, as its class's definitions say (Go's struct fields, Python's `self.x`,
        TypeScript's fields), when they agree; never surer than what `head` holds."""
        owner = self.bound(CallRef(ref.document_id, "call", "", head, "", ref.line, ref.scope))
        if owner is None or outside(owner[0]):
            return None
        key = (ref.document_id, f"{owner[0]}.{field}", "", "field")
        if key in self._working:
            return None
        self._working.add(key)
        try:
            held = [binding for cls in self.classes_named(owner[0])
                    for binding in self._attribute_bindings(cls.document_id, cls.name, field)]
            agreed = _agreed([self._said(binding) for binding in held]) if held else self._property(owner[0], field)
        finally:
            self._working.discard(key)
        return (agreed[0], min(agreed[1], owner[1])) if agreed is not None else None

    def _property(self, owner: str, attribute: str) -> tuple[str, float] | None:
        """What an attribute no binding gives holds when the class has a method of its name that
        says what it returns (a property: `text.plain.replace()`, `plain` saying `-> str`)."""
        if not owner:
            return None
        said = {name for method in self.graph.named(attribute) if method.name == f"{owner}.{attribute}"
                and method.kind not in CLASSLIKE for name in self._returns(method)}
        return (said.pop(), 1.0) if len(said) == 1 else None

    def _attribute_bindings(self, doc_id: int, scope: str, attribute: str) -> list[Binding]:
        """Every binding the class around `scope` makes of `self.<attribute>`, in its body and
        its methods."""
        bindings = self._file(doc_id)
        if attribute not in self._names[doc_id]:  # nothing here binds it
            return []
        classes = self.classes(doc_id)
        owner = _class_around(scope, classes)
        if not owner:
            return []
        if doc_id not in self._attributes:
            made: dict[tuple[str, str], list[Binding]] = {}
            for (where, name), held in bindings.items():
                if name.startswith(("self.", "this.")) or where in classes:  # `self.pool = ...`, a class body's `pool: Pool`
                    around = _class_around(where, classes)
                    made.setdefault((around, name.removeprefix("self.").removeprefix("this.")), []).extend(held)
            self._attributes[doc_id] = made
        return self._attributes[doc_id].get((owner, attribute), [])

    def _item(self, item: CallRef) -> tuple[str, float] | None:
        """The class a loop's variable holds: an item of what it iterates (`item` references),
        when everything that binds the iterable says the same of its items, as surely as the
        least sure of them."""
        key = (item.document_id, item.name, item.alias, item.scope)
        if key in self._working:
            return None
        self._working.add(key)
        try:
            if item.alias == "()":  # `for p in self.get_params():`: what the function says it returns
                receiver, _, called = item.name.rpartition(".")
                held = self._returned_items(self._call(item.document_id, called, receiver, item.line, item.scope))
            else:
                head, _, attribute = item.name.partition(".")
                binding = None if attribute else self._binding(item.document_id, item.name, item.line, item.scope)
                bindings = (self._attribute_bindings(item.document_id, item.scope, attribute) if attribute
                            else [binding] if binding is not None else [])
                held = [found for binding in bindings for found in self._holding(binding)]
        finally:
            self._working.discard(key)
        taken = {_taken(spec, "" if item.alias == "()" else item.alias) for spec, _ in held}
        if len(taken) != 1 or "" in taken:
            return None
        return taken.pop(), min(confidence for _, confidence in held)

    def _parameter(self, param: CallRef) -> tuple[str, float] | None:
        """The class a callback's parameter holds (`param` references): what the signature of
        the function it is passed to says that parameter of that argument is, when every
        definition the call reaches at 0.5 or more says the same class and the index defines
        it (a type parameter, `T`, says nothing)."""
        receiver, _, called = param.name.rpartition(".")
        argument, _, position = param.alias.partition(".")
        sure = _sure(self._call(param.document_id, called, receiver, param.line, param.scope))
        said = {callback_parameter(target.signature, int(argument), int(position)) for target, _ in sure}
        if len(said) != 1 or None in said:
            return None
        found = said.pop()
        if found is None or not self.classes_named(found):
            return None
        return found, min(confidence for _, confidence in sure)

    def _holding(self, binding: Binding, depth: int = 0) -> list[tuple[str, float]]:
        """What a binding says its name's items are (`E` or `K:V`, see `parse.refs.elements_of`),
        and how surely: written in its annotation, or in the return annotation of the function
        whose result it is, or said of the name it was given."""
        line, _, made = binding
        if made is None or depth > 4:
            return []
        if made.kind == "type":
            return [(made.alias, 1.0)] if made.alias else []
        if made.kind == "same":
            given = self._binding(made.document_id, made.name, line, made.scope)
            return self._holding(given, depth + 1) if given is not None else []
        if made.kind == "result":
            return self._returned_items(self._call(made.document_id, made.name, made.qualifier, line, made.scope))
        return []

    def _holding_returned(self, target: SymbolRef) -> list[str]:
        """What a function's return annotation says its result's items are (`-> list[Param]`)."""
        return [r.alias for r in self.graph.refs(target.document_id, "returns") if r.scope == target.name and r.alias]

    def _returned(self, result: CallRef, arity: str = "") -> tuple[str, float] | None:
        """The class a `result` reference's call returns, and how surely: what the definitions
        it reaches at 0.5 or more (with `arity` arguments, when known) say they return, when
        they agree, as surely as the least sure of them is reached."""
        key = (result.document_id, result.name, result.qualifier, result.scope)
        if key in self._working:  # `node = node.next()`: its own receiver
            return None
        self._working.add(key)
        try:
            called = self._call(result.document_id, result.name, result.qualifier, result.line, result.scope, arity)
        finally:
            self._working.discard(key)
        if _made_outside(result, called, self.graph.files.get(result.document_id, ("", "", None))[2]):
            return f"{result.qualifier}.{result.name}".lstrip(".") + "()", 1.0
        sure = _sure(called)
        said = {name for target, _ in sure for name in self._returns(target)}
        return (said.pop(), min(confidence for _, confidence in sure)) if len(said) == 1 else None

    def _returns(self, target: SymbolRef) -> list[str]:
        """The classes a definition says it returns; a class called makes one of itself."""
        if target.kind in CLASSLIKE:
            return [target.name]
        said = [r.name for r in self.graph.refs(target.document_id, "returns") if r.scope == target.name
                and target.start_line <= r.line <= target.end_line]  # of this overload (jsoup's two `tag`s)
        own = owner_of(target.name)  # `-> Self`, PHP's `: static`: the class whose method it is
        return [own if name == "Self" and own else name for name in said]

    def typed(self, bound: str, surely: float, name: str, receiver: str,
              named: dict[str, list[SymbolRef]], arity: str = "") -> Resolution | None:
        """`receiver.name()` where the receiver holds the class `bound` (`surely`: how surely):
        its method (0.9), else the one it inherits through three levels of recorded bases
        (0.85), never surer than the binding; `named`: the call's candidates by full name. With
        the call's `arity`, the nearest whose parameters take its arguments, else the nearest."""
        direct = named.get(f"{bound}.{name}") or _nested(named, f"{bound}.{name}")
        if direct and (fit := fitting(direct, arity)):
            return Resolution([(s, min(0.9, surely)) for s in fit], f"{receiver} is a {bound}")
        nearest = Resolution([(s, min(0.9, surely)) for s in direct], f"{receiver} is a {bound}") if direct else None
        level, seen = [bound], {bound}
        for _ in range(3):
            bases = [base for cls in level for s in self.classes_named(cls)
                     for base in self.graph.bases(s.document_id, cls)]
            level = [base for base in dict.fromkeys(bases) if base not in seen]
            seen.update(level)
            for base in level:
                if inherited := named.get(f"{base}.{name}") or _nested(named, f"{base}.{name}"):
                    class_itself = receiver.split("::")[-1].split(".")[-1] == bound  # `Prompt.ask()`
                    says = (f"{bound} inherits it from {base}" if class_itself
                            else f"{receiver} is a {bound}, which inherits it from {base}")
                    if fit := fitting(inherited, arity):
                        return Resolution([(s, min(0.85, surely)) for s in fit], says)
                    nearest = nearest or Resolution([(s, min(0.85, surely)) for s in inherited], says)
        if nearest is None and surely >= 0.9 and (outer := [b for b in seen - {bound} if not self.classes_named(b)]):
            # `elements.size()`, jsoup's Elements being an ArrayList: the method is the base's, not one named so here
            return Resolution([], f"outside the index: {receiver} is a {bound}, which extends {sorted(outer)[0]}")
        return nearest


def _nested(named: dict[str, list[SymbolRef]], spelled: str) -> list[SymbolRef]:
    """The definitions `Class.name` names inside a class nested in another (`HttpConnection.Request`:
    Java's, C++'s and their kind's, which are seen by their short name; a Python class in a function
    is not seen outside it)."""
    return [s for full, found in named.items() if full.endswith("." + spelled)
            for s in found if s.language in IMPLICIT_THIS]


def callback_parameter(signature: str, argument: int, position: int) -> str | None:
    """The class a TypeScript signature gives a parameter of a function it takes:
    `operate(init: (source: Observable<T>, subscriber: Subscriber<R>) => void)`, argument 0,
    position 1, gives `Subscriber`; None when that argument is not written as a function type."""
    opening = signature.find("(")
    listed = _parameters(signature[opening:]) if opening >= 0 else []
    if argument >= len(listed):
        return None
    written = _type_of(listed[argument])
    inner = _parameters(written)
    if not inner or not written[len(_bracketed(written)):].lstrip().startswith("=>") or position >= len(inner):
        return None
    named = re.match(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*", _type_of(inner[position]))
    return named.group(0).rsplit(".", 1)[-1] if named else None


def _nesting(text: str, at: int) -> int:
    """How the character at `at` changes the depth of brackets: +1 opens, -1 closes (the `>`
    of an arrow, `=>`, closes nothing), 0 otherwise."""
    char = text[at]
    return (char in "(<[{") - (char in ")>]}" and not (char == ">" and text[at - 1:at] == "="))


def _bracketed(text: str) -> str:
    """The leading `( ... )` of `text`, brackets balanced ('' when it does not open one)."""
    depth = 0
    for at in range(len(text)):
        depth += _nesting(text, at)
        if depth == 0:
            return text[: at + 1] if text.startswith("(") else ""
    return ""


def _parameters(text: str) -> list[str]:
    """The parameters of a parenthesised list (`(a: A, b: (x: X) => Y)`), split at its top-level
    commas."""
    inside = _bracketed(text)[1:-1] + ","
    parts, depth, start = [], 0, 0
    for at, char in enumerate(inside):
        depth += _nesting(inside, at)
        if char == "," and depth == 0:
            parts.append(inside[start:at].strip())
            start = at + 1
    return [part for part in parts if part]


def _type_of(parameter: str) -> str:
    """The type a parameter is written with (`name?: Type = x` gives `Type`)."""
    name, colon, written = parameter.partition(":")
    return written.strip() if colon else ""


def _sure(called: Resolution) -> list[tuple[SymbolRef, float]]:
    """The definitions a call reaches at 0.5 or more: those what it returns is read of."""
    return [(target, confidence) for target, confidence in called.targets if confidence >= 0.5]


def _agreed(said: list[tuple[str, float] | None]) -> tuple[str, float] | None:
    """The class every binding says, as surely as the least sure; None when they disagree,
    one says nothing, or there are none."""
    classes = {found[0] for found in said if found is not None}
    if len(classes) != 1 or None in said:
        return None
    return classes.pop(), min(found[1] for found in said if found is not None)


def _taken(held: str, how: str) -> str:
    """The class of the items `how` takes ('' iterated, `keys`, `values`) of what `held` says a
    container holds (`E`, or `K:V` for a mapping: iterated, its keys)."""
    key, mapping, value = held.partition(":")
    if how == "values":
        return value if mapping else ""
    return key


def _class_around(scope: str, classes: set[str]) -> str:
    """The innermost class of a file holding `scope` (itself when it is one); '' for none."""
    while scope and scope not in classes:
        scope = owner_of(scope)
    return scope
