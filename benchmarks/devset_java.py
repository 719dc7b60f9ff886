"""A Java code set (code-java): the CodeSearchNet method of devset.py in a language no other
dev set holds, from four projects' main sources at pinned commits of their git history.

- gson (github.com/google/gson at 9835b6f, Apache-2.0): `gson/src/main/java`;
- jsoup (github.com/jhy/jsoup at 46b6208, MIT): `src/main/java`;
- javapoet (github.com/square/javapoet at b9017a9, Apache-2.0): `src/main/java`;
- commons-cli (github.com/apache/commons-cli at 0a68ae0, Apache-2.0): `src/main/java`.

Every documented method and constructor (a `/** */` comment right before it, a body of three
lines or more) gives one query, the first sentence of its Javadoc with inline tags read as
text (`{@code x}` is `x`, `{@link Type#name label}` is `label`, else `Type.name`) and HTML tags
dropped, and one judgement, the declaration's lines. `{@inheritDoc}` comments give none, nor
does a sentence several methods share. Every `/** */` comment is blanked in the indexed copy,
lines kept, so a query never meets its own text; tests are not indexed.

    git clone https://github.com/google/gson DIR/gson   # and jsoup, javapoet, commons-cli
    python benchmarks/devset_java.py --git gson=DIR/gson jsoup=DIR/jsoup javapoet=DIR/javapoet commons-cli=DIR/commons-cli

Without `--git`, a project is read from `benchmarks/.cache/code-java/<name>` (where
bench_graph.py expects gson and jsoup). The files are read at the pinned commit
(`git show`), whatever the clone has checked out. Writes the corpus to
`benchmarks/.cache/code-java-doc/` and the queries to `benchmarks/.cache/code-java.jsonl`
(nothing of it is committed).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
from pathlib import Path, PurePosixPath
from typing import Any

from devset_more import _unique, _write, without
from devset_text import doc_description, first_sentence, good_query

HERE = Path(__file__).parent
CORPUS = HERE / ".cache"
PROJECTS = {  # name: (commit, main sources in the repository)
    "gson": ("9835b6f90", "gson/src/main/java"),
    "jsoup": ("46b62086", "src/main/java"),
    "javapoet": ("b9017a9", "src/main/java"),
    "commons-cli": ("0a68ae0e", "src/main/java"),
}
_INLINE = re.compile(r"\{@(\w+)\s*([^{}]*)\}")


def _inline(match: re.Match[str]) -> str:
    tag, body = match.group(1), match.group(2).strip()
    if tag in ("link", "linkplain"):
        ref, _, label = body.partition(" ")
        if label.strip():
            return label.strip()
        ref = ref.split("(")[0]
        return ref.lstrip("#").replace("#", ".")
    return body  # code, literal, value ...


def javadoc_sentence(comment: str) -> str:
    """The first sentence of a `/** */` comment's description, inline tags as text, HTML
    dropped; "" for a comment that only inherits its description."""
    if "{@inheritDoc}" in comment:
        return ""
    text = _INLINE.sub(_inline, doc_description(comment))
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return first_sentence(text) if text.strip() else ""


def java_methods(source: bytes) -> tuple[list[tuple[str, str, int, int]], bytes]:
    """Documented methods and constructors of a Java file with their Javadoc's first sentence,
    and the source with every `/** */` comment blanked."""
    import tree_sitter_java
    from tree_sitter import Language, Parser

    root = Parser(Language(tree_sitter_java.language())).parse(source).root_node
    found: list[tuple[str, str, int, int]] = []
    comments: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "block_comment" or not source[node.start_byte:node.end_byte].startswith(b"/**"):
            continue
        comments.append((node.start_byte, node.end_byte))
        target = node.next_named_sibling
        if target is None or target.type not in ("method_declaration", "constructor_declaration"):
            continue
        if target.child_by_field_name("body") is None:
            continue  # abstract or an interface's: no lines to find
        name_node = target.child_by_field_name("name")
        if name_node is None or name_node.text is None:
            continue
        query = javadoc_sentence(source[node.start_byte:node.end_byte].decode())
        if good_query(query) and target.end_point[0] - target.start_point[0] >= 2:
            found.append((name_node.text.decode(), query, target.start_point[0] + 1, target.end_point[0] + 1))
    return found, without(source, comments)


def _files(clone: Path, commit: str, folder: str) -> list[tuple[str, bytes]]:
    names = subprocess.run(["git", "-C", str(clone), "ls-tree", "-r", "--name-only", commit, "--", folder],
                           check=True, capture_output=True, text=True).stdout.split()
    return [(name, subprocess.run(["git", "-C", str(clone), "show", f"{commit}:{name}"],
                                  check=True, capture_output=True).stdout)
            for name in sorted(names) if name.endswith(".java")]


def build(clones: dict[str, Path], corpus: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for name, (commit, folder) in PROJECTS.items():
        for path, data in _files(clones[name], commit, folder):
            rel = PurePosixPath(name, PurePosixPath(path).relative_to(folder))
            methods, stripped = java_methods(data)
            _write(corpus / rel, stripped)
            found += [{"qid": f"{rel}:{method}:{start}", "query": query, "package": name, "language": "java",
                       "relevant": [{"path": str(rel), "start_line": start, "end_line": end}]}
                      for method, query, start, end in methods]
    return _unique(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git", nargs="*", default=[], metavar="NAME=DIR", help="the projects' clones")
    args = parser.parse_args()
    given = dict((name, Path(folder)) for name, _, folder in (item.partition("=") for item in args.git))
    clones = {name: given.get(name, CORPUS / "code-java" / name) for name in PROJECTS}
    queries = build(clones, CORPUS / "code-java-doc")
    out = CORPUS / "code-java.jsonl"
    out.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries))
    counts = {name: sum(q["package"] == name for q in queries) for name in PROJECTS}
    print(f"code-java: {len(queries)} queries {counts} -> {out}; corpus {CORPUS / 'code-java-doc'}")


if __name__ == "__main__":
    main()
