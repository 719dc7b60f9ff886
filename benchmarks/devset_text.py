"""What the code dev sets take from a docstring or a JSDoc comment as a query (shared by
devset.py and devset_more.py)."""

from __future__ import annotations

import inspect
import re


def first_sentence(doc: str) -> str:
    """The first sentence of the first paragraph, on one line."""
    paragraph = inspect.cleandoc(doc).split("\n\n")[0]
    text = " ".join(paragraph.split())
    match = re.search(r"(?<=[.!?])\s", text)
    return text[: match.start()] if match else text


def good_query(text: str) -> bool:
    """CodeSearchNet's filters, roughly: a real sentence of three words or more."""
    return len(text.split()) >= 3 and not text.startswith((":", "@", ">>>", "..", "#"))


def doc_description(comment: str) -> str:
    """A `/** */` comment's description: its lines before the first `@tag`, stars stripped."""
    body = [re.sub(r"^\s*\*\s?", "", line) for line in comment[3:-2].splitlines()]
    description: list[str] = []
    for line in body:
        if line.strip().startswith("@"):
            break
        description.append(line)
    return "\n".join(description)


def jsdoc_sentence(comment: str) -> str:
    description = doc_description(comment)
    return first_sentence(description) if description.strip() else ""
