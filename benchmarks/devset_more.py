"""More dev sets (see devset.py for the first two): code in TypeScript and Go, docs in Markdown
and HTML, and issue -> files localization. Every corpus comes from a pinned artifact of a
package registry (PyPI, npm, Debian), checked by sha256; nobody on the team judged a query.

- code-ts: rxjs 7.8.1 (npm, Apache-2.0), its TypeScript sources. The CodeSearchNet method
  as in devset.py: a documented function's JSDoc first sentence is the query, its lines the
  judgement, and every `/** */` comment is blanked in the indexed copy.
- code-go: cobra, pflag, gorilla/mux, go-cmp and logrus from Debian 12's golang-*-dev
  packages (Apache-2.0, BSD-3-Clause, BSD-3-Clause, BSD-3-Clause, MIT). Go doc comments
  start with the function's name ("Execute uses the args ..."); it is dropped from the query
  ("uses the args ..."), so the name the code holds is not handed to the search. Doc
  comments are blanked in the indexed copy; test files are left out.
- docs-md: Hatch 1.18.2's Markdown documentation (PyPI sdist, MIT). Queries are the section
  headings of its how-to, tutorial and FAQ pages (the FAQ's questions), judged by the pages
  and sections their text links to; those pages are left out of the indexed copy.
- docs-html: git 2.39.5's HTML documentation (Debian git-doc, GPL-2.0). Queries are the
  section headings of the Git User's Manual and the questions of gitfaq, judged by the
  manual pages their text links to (`git-clone.html`); both pages are left out.
- loc: issue -> files. SQLAlchemy 2.0.44 and Black 25.9.0 (PyPI sdists, MIT) are the
  corpora; the queries are the messages of the commits made after each release (SQLAlchemy's
  detailed commit messages, Black's squash-merged pull requests), judged by the library
  files each commit changed that exist in the release. File names are removed from the
  text. Building them needs the projects' git history: `--loc-git sqlalchemy=DIR
  black=DIR`; without it the committed loc.jsonl is kept and only the corpora are written.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from devset_text import first_sentence, good_query, jsdoc_sentence


@dataclass(frozen=True)
class Artifact:
    """A pinned download: `registry` is pypi (sdist), npm or debian (`name=version`)."""

    name: str
    spec: str
    sha256: str
    registry: str


RXJS = Artifact("rxjs", "rxjs@7.8.1", "c532167725ab7d085123209156c93cef22f2479cb9c8527060f1cd903aa9d149", "npm")
GO = (
    Artifact("cobra", "golang-github-spf13-cobra-dev=1.6.1-1",
             "4f5d20855133319beef3c5b49d3c21a0406f270bf94fb4b6f4d406b691283cb2", "debian"),
    Artifact("pflag", "golang-github-spf13-pflag-dev=1.0.6~git20210604-d5e0c0615ace-1",
             "bd1c3c2a3e47512a64da02ebea900eb5a3f3c5d386e559d5718a3a935c0ea570", "debian"),
    Artifact("mux", "golang-github-gorilla-mux-dev=1.8.0-1",
             "0880a4019fe68496a0e0a749c2948c029e489f49edd448bed2fedaba33f848c2", "debian"),
    Artifact("go-cmp", "golang-github-google-go-cmp-dev=0.5.9-1",
             "b68bd919daa7c1bdf02abfb68894e29e532f19b03b68c8615f50626c48f553b6", "debian"),
    Artifact("logrus", "golang-github-sirupsen-logrus-dev=1.9.0-1",
             "51fb87b05452e96be38b97c03d5f997f6ce3a144421f911338d6c4ea2e8aa118", "debian"),
)
HATCH = Artifact("hatch", "hatch==1.18.2", "7f365f1a5b8f1a8162813daed9bf9fce83f15dc933fc99c6d04cbb942e64f4d0", "pypi")
GIT_DOC = Artifact("git-doc", "git-doc=1:2.39.5-0+deb12u3",
                   "3c89668a11053a6bafade3de1f611f4613db31e082af63f43d8c5b69ad8795ec", "debian")
LOC = (
    Artifact("sqlalchemy", "sqlalchemy==2.0.44", "0ae7454e1ab1d780aee69fd2aae7d6b8670a581d8847f2d1e0f7ddfbf47e5a22", "pypi"),
    Artifact("black", "black==25.9.0", "0474bca9a0dd1b51791fcc507a4e02078a1c63f6d4e4ae5544b9848c7adfb619", "pypi"),
)
# Each localization corpus: the release's tag in the project's history, the last tag whose
# commits become queries, and the library folders of the sdist (and the repository).
LOC_RANGE = {"sqlalchemy": ("rel_2_0_44", "rel_2_0_49", ("lib/sqlalchemy",)),
             "black": ("25.9.0", "26.5.1", ("src/black", "src/blib2to3", "src/blackd"))}


def fetch(artifact: Artifact, into: Path) -> Path:
    """Download one pinned artifact into `into` and check its sha256; return its path."""
    into.mkdir(parents=True, exist_ok=True)
    if artifact.registry == "npm":
        cmd = ["npm", "pack", "--silent", "--pack-destination", str(into), artifact.spec]
    elif artifact.registry == "debian":
        cmd = ["apt-get", "download", "-q", artifact.spec]
    else:
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", str(into),
               artifact.spec]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=into)
    stem = artifact.spec.split("=")[0].split("@")[0].lower()
    (found,) = [p for p in into.iterdir() if p.name.lower().startswith(stem.replace("-", "_"))
                or p.name.lower().startswith(stem)]
    digest = hashlib.sha256(found.read_bytes()).hexdigest()
    if digest != artifact.sha256:
        raise SystemExit(f"{found.name}: sha256 {digest} is not the pinned {artifact.sha256}")
    return found


def unpack(artifact: Path, into: Path) -> Path:
    """Unpack an sdist, npm tarball or Debian package into `into`; return that folder."""
    into.mkdir(parents=True, exist_ok=True)
    if artifact.suffix == ".deb":
        subprocess.run(["dpkg-deb", "-x", str(artifact), str(into)], check=True)
    else:
        with tarfile.open(artifact) as tar:
            tar.extractall(into, filter="data")
    return into


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)


def _unique(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop queries that several functions share: they have no single answer."""
    counts: dict[str, int] = {}
    for item in found:
        counts[item["query"].lower()] = counts.get(item["query"].lower(), 0) + 1
    return [item for item in found if counts[item["query"].lower()] == 1]


def without(source: bytes, spans: list[tuple[int, int]]) -> bytes:
    """`source` with the byte spans (comments) removed but their newlines kept, so every
    line stays where it was."""
    out = bytearray(source)
    for start, end in sorted(set(spans), reverse=True):
        out[start:end] = b"\n" * source.count(b"\n", start, end)
    return bytes(out)


# --- code: TypeScript ------------------------------------------------------------------------


def typescript_functions(source: bytes) -> tuple[list[tuple[str, str, int, int]], bytes]:
    """Documented functions and methods of a TypeScript file with their JSDoc's first
    sentence, and the source with every `/** */` comment blanked. An overloaded function's
    span runs from its first signature to the end of its implementation."""
    import tree_sitter_typescript
    from tree_sitter import Language, Parser

    tree = Parser(Language(tree_sitter_typescript.language_typescript())).parse(source)
    found: list[tuple[str, str, int, int]] = []
    comments: list[tuple[int, int]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "comment" or not source[node.start_byte:node.end_byte].startswith(b"/**"):
            continue
        comments.append((node.start_byte, node.end_byte))
        target = node.next_named_sibling
        if target is not None and target.type == "export_statement":
            target = target.child_by_field_name("declaration") or target
        if target is None or target.type not in ("function_declaration", "function_signature", "method_definition"):
            continue
        name_node = target.child_by_field_name("name")
        if name_node is None or name_node.text is None:
            continue
        name, end = name_node.text.decode(), target.end_point[0]
        sibling = target.parent.next_named_sibling if target.parent and target.parent.type == "export_statement" \
            else target.next_named_sibling
        while target.type == "function_signature" and sibling is not None:  # overloads, then the body
            inner = sibling.child_by_field_name("declaration") if sibling.type == "export_statement" else sibling
            if inner is None or inner.type not in ("function_signature", "function_declaration") or \
                    (inner.child_by_field_name("name") is None) or inner.child_by_field_name("name").text != name_node.text:
                break
            end = inner.end_point[0]
            if inner.type == "function_declaration":
                break
            sibling = sibling.next_named_sibling
        query = jsdoc_sentence(source[node.start_byte:node.end_byte].decode())
        if good_query(query) and end - target.start_point[0] >= 2:
            found.append((name, query, target.start_point[0] + 1, end + 1))
    return found, without(source, comments)


def build_code_ts(downloads: Path, corpus: Path) -> list[dict[str, Any]]:
    root = corpus / "code-ts" / "rxjs"
    extracted = unpack(fetch(RXJS, downloads / "rxjs"), downloads / "rxjs-x") / "package" / "src"
    found: list[dict[str, Any]] = []
    for path in sorted(extracted.rglob("*.ts")):
        rel = PurePosixPath("rxjs", path.relative_to(extracted).as_posix())
        if path.name.endswith((".spec.ts", ".d.ts")):
            continue
        functions, stripped = typescript_functions(path.read_bytes())
        _write(corpus / "code-ts" / rel, stripped)
        found += [{"qid": f"{rel}:{name}:{start}", "query": query, "package": "rxjs", "language": "typescript",
                   "relevant": [{"path": str(rel), "start_line": start, "end_line": end}]}
                  for name, query, start, end in functions]
    assert root.exists()
    return _unique(found)


# --- code: Go --------------------------------------------------------------------------------


def go_functions(source: bytes) -> tuple[list[tuple[str, str, int, int]], bytes]:
    """Documented functions and methods of a Go file (doc comment: the `//` lines right above
    the declaration) with its first sentence, the leading name dropped; and the source with
    every declaration's doc comment blanked."""
    import tree_sitter_go
    from tree_sitter import Language, Parser

    root = Parser(Language(tree_sitter_go.language())).parse(source).root_node
    found: list[tuple[str, str, int, int]] = []
    comments: list[tuple[int, int]] = []
    children = root.named_children
    for n, node in enumerate(children):
        if node.type == "comment" or n == 0:
            continue
        block: list[Any] = []
        k = n - 1
        while k >= 0 and children[k].type == "comment" and children[k].end_point[0] == \
                (block[0].start_point[0] if block else node.start_point[0]) - 1:
            block.insert(0, children[k])
            k -= 1
        if not block or block[0].text is None:
            continue
        text = "\n".join(re.sub(r"^//\s?", "", (c.text or b"").decode()) for c in block)
        comments += [(c.start_byte, c.end_byte) for c in block]
        if node.type not in ("function_declaration", "method_declaration"):
            continue
        name_node = node.child_by_field_name("name")
        name = (name_node.text or b"").decode() if name_node is not None else ""
        sentence = first_sentence(text)
        words = sentence.split(" ", 1)
        if words[0] == name and len(words) == 2:
            sentence = words[1]
        if name and good_query(sentence) and node.end_point[0] - node.start_point[0] >= 2:
            found.append((name, sentence, node.start_point[0] + 1, node.end_point[0] + 1))
    return found, without(source, comments)


def build_code_go(downloads: Path, corpus: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for artifact in GO:
        extracted = unpack(fetch(artifact, downloads / artifact.name), downloads / f"{artifact.name}-x")
        sources = extracted / "usr" / "share" / "gocode" / "src"
        for path in sorted(sources.rglob("*.go")):
            if path.name.endswith("_test.go") or "/vendor/" in path.as_posix() or path.is_symlink():
                continue
            rel = PurePosixPath(artifact.name, *path.relative_to(sources).parts[3:])  # drop github.com/owner/repo
            functions, stripped = go_functions(path.read_bytes())
            _write(corpus / "code-go" / rel, stripped)
            found += [{"qid": f"{rel}:{name}:{start}", "query": query, "package": artifact.name, "language": "go",
                       "relevant": [{"path": str(rel), "start_line": start, "end_line": end}]}
                      for name, query, start, end in functions]
    return _unique(found)


# --- docs: Markdown (Hatch) ------------------------------------------------------------------

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FAQ_Q = re.compile(r"^\*\*\*Q\*\*\*:\s*(.+)$")
# The pages whose questions become queries (and leave the indexed copy), per project.
QUERY_PAGES = {"hatch": ("how-to/", "tutorials/", "meta/faq.md"), "black": ("faq.md", "guides/")}
MD_DOCS = (HATCH, Artifact("black", "black==25.9.0", "0474bca9a0dd1b51791fcc507a4e02078a1c63f6d4e4ae5544b9848c7adfb619",
                           "pypi"))


def _anchor(title: str) -> str:
    """MkDocs' anchor of a heading (Python-Markdown's toc slugify)."""
    text = re.sub(r"[^\w\s-]", "", title).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def markdown_targets(root: Path) -> dict[str, dict[str, Any]]:
    """Every page (`path`) and heading (`path#anchor`) of a Markdown tree → its judgement."""
    targets: dict[str, dict[str, Any]] = {}
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        targets[rel] = {"path": rel}
        heads = [(n, len(m.group(1)), m.group(2)) for n, line in enumerate(lines) if (m := _MD_HEADING.match(line))]
        for i, (n, level, title) in enumerate(heads):
            end = next((m for m, lv, _ in heads[i + 1:] if lv <= level), len(lines))
            targets[f"{rel}#{_anchor(title)}"] = {"path": rel, "start_line": n + 1, "end_line": end}
    return targets


def _resolve(page: str, link: str) -> str | None:
    """A link's target key (`path` or `path#anchor`) relative to the linking page (or to the
    docs root, for `/path`), if internal."""
    if re.match(r"^[a-z]+:", link):
        return None
    target, _, anchor = link.partition("#")
    if target.startswith("/"):
        path = target.lstrip("/")
    else:
        path = PurePosixPath(page).parent.joinpath(target).as_posix() if target else page
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    path = "/".join(parts)
    if path.endswith("/"):
        path += "index.md"
    return f"{path}#{anchor}" if anchor else path


def markdown_questions(page: str, lines: list[str]) -> list[tuple[int, str, str]]:
    """(1-based line, question, section text) of a how-to page's headings or a FAQ's Q: lines."""
    marks = [(n, m.group(2)) for n, line in enumerate(lines) if (m := _MD_HEADING.match(line))]
    marks += [(n, m.group(1)) for n, line in enumerate(lines) if (m := _FAQ_Q.match(line))]
    marks.sort()
    out = []
    for i, (n, title) in enumerate(marks):
        end = marks[i + 1][0] if i + 1 < len(marks) else len(lines)
        out.append((n + 1, title.strip(), "\n".join(lines[n + 1 : end])))
    return out


def build_docs_md(downloads: Path, corpus: Path) -> list[dict[str, Any]]:
    """Hatch's and Black's docs in one folder (`hatch/...`, `black/...`), one source."""
    queries = []
    for artifact in MD_DOCS:
        root = corpus / "docs-md" / artifact.name
        sdist = unpack(fetch(artifact, downloads / f"md-{artifact.name}"), downloads / f"md-{artifact.name}-x")
        (docs,) = sdist.glob(f"{artifact.name}-*/docs")
        pages: dict[str, list[str]] = {}
        for path in sorted(docs.rglob("*.md")):
            rel = path.relative_to(docs).as_posix()
            if rel.startswith(QUERY_PAGES[artifact.name]):
                pages[rel] = path.read_text(encoding="utf-8").splitlines()
            elif not rel.startswith(("blog/", "history/")) and rel not in ("change_log.md", "CHANGES.md"):
                _write(root / rel, path.read_bytes())
        targets = markdown_targets(root)
        for page, lines in sorted(pages.items()):
            for line, question, body in markdown_questions(page, lines):
                keys = [_resolve(page, link) for link in _MD_LINK.findall(body)]
                found = {json.dumps(targets[k], sort_keys=True): targets[k] for k in keys if k in targets}
                relevant = [{**t, "path": f"{artifact.name}/{t['path']}"} for t in found.values()]
                if relevant and len(question.split()) >= 2:
                    queries.append({"qid": f"{artifact.name}:{page}:{line}", "query": question,
                                    "project": artifact.name, "page": page, "relevant": relevant})
    return queries


# --- docs: HTML (git) ------------------------------------------------------------------------

_HTML_HEAD = re.compile(r"<h([2-4])[^>]*>(.*?)</h\1>", re.DOTALL)
_HTML_DT = re.compile(r"<dt[^>]*>(.*?)</dt>", re.DOTALL)
_HTML_LINK = re.compile(r'href="(git[\w-]*\.html)(?:#([\w-]+))?"')
_TAG = re.compile(r"<[^>]+>")
GIT_QUERY_PAGES = ("user-manual.html", "gitfaq.html")


def _plain(html_text: str) -> str:
    import html

    return " ".join(html.unescape(_TAG.sub(" ", html_text)).split())


def html_questions(text: str, faq: bool) -> list[tuple[str, str]]:
    """(question, section html) of the manual's headings, or of the FAQ's <dt> questions."""
    pattern = _HTML_DT if faq else _HTML_HEAD
    marks = [(m.start(), m.end(), _plain(m.group(m.lastindex or 1))) for m in pattern.finditer(text)]
    out = []
    for i, (_, end, title) in enumerate(marks):
        stop = marks[i + 1][0] if i + 1 < len(marks) else len(text)
        out.append((re.sub(r"^[\d.]+\s*", "", title), text[end:stop]))
    return out


def build_docs_html(downloads: Path, corpus: Path) -> list[dict[str, Any]]:
    root = corpus / "docs-html" / "git"
    extracted = unpack(fetch(GIT_DOC, downloads / "git-doc"), downloads / "git-doc-x") / "usr/share/doc/git-doc"
    pages = {}
    for path in sorted(extracted.glob("*.html")):
        if path.name in GIT_QUERY_PAGES:
            pages[path.name] = path.read_text(encoding="utf-8")
        else:
            _write(root / path.name, path.read_bytes())
    queries = []
    for page, text in pages.items():
        for n, (question, body) in enumerate(html_questions(text, faq=page == "gitfaq.html")):
            linked = dict.fromkeys(m.group(1) for m in _HTML_LINK.finditer(body))
            relevant = [{"path": name} for name in linked if (root / name).exists()]
            if relevant and len(question.split()) >= 2:
                queries.append({"qid": f"git:{page}:{n}", "query": question, "page": page, "relevant": relevant})
    return queries


# --- localization: issue -> files ------------------------------------------------------------

_DROP_LINE = re.compile(r"^(Fixes|Closes|References|Change-Id|Signed-off-by|Co-authored-by|Co-Authored-By|Pull-request)\b.*"
                        r"|^\(cherry picked from .*\)$|^-{3,}$|^\*\s*(Add(ed)? (a )?(changelog|CHANGES|news)|Apply suggestion|"
                        r"Update CHANGES|Merge branch|fix lint|Fix lint|pre-commit).*", re.IGNORECASE)
_FILE_NAME = re.compile(r"[\w./-]*\b[\w-]+\.(?:py|pyi|pyx|rst|md|txt|toml|cfg|ini|yml|yaml|json)\b")
_RST_ROLE = re.compile(r":[\w:]+:`~?\.?([^`<]*?)(?:\s*<[^>]*>)?`")


_PR_TEMPLATE = re.compile(r"<!--.*?-->|^#+\s*Checklist.*", re.DOTALL | re.MULTILINE)


def issue_text(message: str) -> str:
    """A commit message as an issue: no trailers, no changelog chores, no pull-request
    template (comments, checklist), no file names, no rst roles."""
    message = _PR_TEMPLATE.sub("", message).replace("### Description", "")
    title = message.strip().splitlines()[0] if message.strip() else ""
    lines = [line for line in message.splitlines()
             if not _DROP_LINE.match(line.strip()) and line.strip().lstrip("* ") != title.strip()]
    if lines and title:
        lines[0] = title
    text = re.sub(r"[ \t]*\(#\d+\)[ \t]*$", "", "\n".join(lines).strip(), count=1, flags=re.MULTILINE)
    text = _RST_ROLE.sub(r"\1", text)
    text = _FILE_NAME.sub("", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def commits(repo: Path, first: str, last: str, folders: tuple[str, ...]) -> list[tuple[str, str, list[str]]]:
    """(sha, message, library files changed) of each commit after `first` up to `last`."""
    log = subprocess.run(["git", "-C", str(repo), "log", "--no-merges", "--format=%x00%H%x01%B%x02", "--name-only",
                          f"{first}..{last}", "--", *folders], capture_output=True, text=True, check=True).stdout
    out = []
    for record in log.split("\x00")[1:]:
        sha, rest = record.split("\x01", 1)
        message, files = rest.split("\x02", 1)
        changed = [f for f in files.split() if f.endswith(".py") and f.startswith(folders)]
        out.append((sha, message, changed))
    return out


def build_loc(downloads: Path, corpus: Path, git: dict[str, Path]) -> list[dict[str, Any]] | None:
    queries: list[dict[str, Any]] = []
    for artifact in LOC:
        first, last, folders = LOC_RANGE[artifact.name]
        sdist = unpack(fetch(artifact, downloads / artifact.name), downloads / f"{artifact.name}-x")
        (top,) = [p for p in sdist.iterdir() if p.is_dir()]
        root = corpus / "loc" / artifact.name
        present = set()
        for folder in folders:
            for path in sorted((top / folder).rglob("*.py")) if (top / folder).exists() else []:
                rel = path.relative_to(top).as_posix()
                present.add(rel)
                _write(root / rel, path.read_bytes())
        if artifact.name not in git:
            continue
        for sha, message, changed in commits(git[artifact.name], first, last, folders):
            relevant = [f for f in dict.fromkeys(changed) if f in present]
            text = issue_text(message)
            chore = re.match(r"^(Bump|Prepare|Release|- |(docs|ci|chore|tests?|build|style|refactor)\b[(:])", text) \
                or re.search(r"\btypos?\b", text.split("\n", 1)[0], re.IGNORECASE)
            if relevant and len(text.split()) >= 6 and not chore:
                queries.append({"qid": f"{artifact.name}:{sha[:12]}", "query": text, "project": artifact.name,
                                "commit": sha, "relevant": [{"path": f"{artifact.name}/{f}"} for f in relevant]})
    return queries if git else None


SETS = ("code-ts", "code-go", "docs-md", "docs-html", "loc")


def build(corpus: Path, out: Path, git: dict[str, Path], wanted: set[str]) -> None:
    """Write the corpora under `corpus` and the query files under `out` of the sets wanted."""
    builders = {"code-ts": build_code_ts, "code-go": build_code_go, "docs-md": build_docs_md,
                "docs-html": build_docs_html, "loc": lambda d, c: build_loc(d, c, git)}
    with tempfile.TemporaryDirectory() as tmp:
        sets = {name: builders[name](Path(tmp), corpus) for name in SETS if name in wanted}
    for name, queries in sets.items():
        if queries is None:
            print(f"{name}: kept {out / f'{name}.jsonl'} (no --loc-git); corpus {corpus / name}")
            continue
        (out / f"{name}.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries))
        print(f"{name}: {len(queries)} queries -> {out / f'{name}.jsonl'}; corpus {corpus / name}")
