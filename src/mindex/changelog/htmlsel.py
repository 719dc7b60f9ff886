"""A small DOM from the standard library's HTML parser and the CSS selectors a changelog page
needs: `tag`, `.class`, `#id`, `[attr]`, `[attr=value]`, compounds (`section.release`),
descendant (`main h2`) and child (`ul > li`) combinators, and `,` lists. Enough for the
registry's `selectors`; anything else is a clear error."""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser

from mindex.errors import ConfigError

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Element:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Element | None) -> None:
        self.tag = tag
        self.attrs = attrs
        self.parent = parent
        self.children: list[Element | str] = []

    def elements(self) -> list[Element]:
        return [c for c in self.children if isinstance(c, Element)]

    def descendants(self) -> list[Element]:
        out = []
        for child in self.elements():
            out.append(child)
            out.extend(child.descendants())
        return out

    def html(self) -> str:
        """The element's inner HTML, rebuilt."""
        parts = []
        for child in self.children:
            if isinstance(child, str):
                parts.append(escape(child, quote=False))
            else:
                attrs = "".join(f' {k}="{escape(v)}"' for k, v in child.attrs.items())
                inner = "" if child.tag in VOID else f"{child.html()}</{child.tag}>"
                parts.append(f"<{child.tag}{attrs}>{inner}")
        return "".join(parts)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(element)
        if tag not in VOID:
            self.current = element

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent  # close it and anything left open inside it

    def handle_data(self, data: str) -> None:
        if self.current.tag not in ("script", "style"):
            self.current.children.append(data)


def parse_html(text: str) -> Element:
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return builder.root


def text_of(element: Element | None) -> str:
    if element is None:
        return ""
    parts: list[str] = []
    for child in element.children:
        parts.append(child if isinstance(child, str) else text_of(child))
    return " ".join("".join(parts).split())


_COMPOUND = re.compile(r"^(?P<tag>[a-zA-Z][\w-]*|\*)?(?P<rest>(?:[.#][\w-]+|\[[^\]]+\])*)$")


def _matches(element: Element, compound: str) -> bool:
    m = _COMPOUND.match(compound)
    if not m:
        raise ConfigError(f"selector part {compound!r} is not supported (tag, .class, #id, [attr], [attr=value])")
    if m.group("tag") and m.group("tag") != "*" and element.tag != m.group("tag").lower():
        return False
    for part in re.findall(r"[.#][\w-]+|\[[^\]]+\]", m.group("rest") or ""):
        if part[0] == ".":
            if part[1:] not in element.attrs.get("class", "").split():
                return False
        elif part[0] == "#":
            if element.attrs.get("id") != part[1:]:
                return False
        else:
            name, _, value = part[1:-1].partition("=")
            name = name.strip()
            if name not in element.attrs or (value and element.attrs[name] != value.strip().strip("\"'")):
                return False
    return True


def select(root: Element, selector: str) -> list[Element]:
    """Elements under `root` matching the selector, in document order, once each."""
    found: list[Element] = []
    for alternative in selector.split(","):
        steps = re.findall(r">|[^\s>]+", alternative.strip())
        if not steps:
            continue
        current = [root]
        combinator = " "
        for step in steps:
            if step == ">":
                combinator = ">"
                continue
            following: list[Element] = []
            for node in current:
                pool = node.elements() if combinator == ">" else node.descendants()
                following.extend(e for e in pool if _matches(e, step))
            current = list(dict.fromkeys(following))
            combinator = " "
        found.extend(e for e in current if e not in found)
    order = {id(e): n for n, e in enumerate(root.descendants())}
    return sorted(found, key=lambda e: order.get(id(e), 0))
