"""Build the `docs-sqlite` dev set: SQLite's FAQ questions → the documentation pages their
answers link to, over SQLite's own HTML documentation.

Origin: Debian 12's `sqlite3-doc` 3.40.1-2+deb12u2 (the sqlite.org website as HTML; SQLite and
its documentation are in the public domain), pinned by sha256 below; fetch it with
`apt-get download sqlite3-doc`. A project that shares nothing with the ranker's training sets
(SQLAlchemy, Hatch, Black, git, the code sets).

Construction: `faq.html`'s numbered questions (`<a name="qN">`), each judged by the pages
its answer links to that exist in the corpus (links to `index.html`, the stylesheet, support
and licence pages, and anchors into the FAQ itself left out). The corpus is every other HTML
page of the package but the release logs (`releaselog/`, 300 pages of change lists). Judged
by page, like docs-html: results are grouped by file before scoring.

    python benchmarks/devset_sqlite.py --deb sqlite3-doc_3.40.1-2+deb12u2_all.deb

Writes `benchmarks/.cache/docs-sqlite/` and `benchmarks/.cache/docs-sqlite.jsonl` (git-ignored;
deterministic).
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
DEB_SHA256 = "466e30d7066e2641fa13e56bc662a2ad521b8cc9c17dde9c9dac3d4f105e32f2"
_QUESTION = re.compile(r'<a name="q(\d+)"></a>(.*?)(?=<a name="q\d+"></a>|</dl>|$)', re.S)
_LINK = re.compile(r'href="([^"#:]+\.html)(?:#[^"]*)?"')
_SKIP = {"index.html", "support.html", "prosupport.html", "copyright.html", "faq.html"}


def plain(text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def build(deb: Path, out: Path) -> int:
    digest = hashlib.sha256(deb.read_bytes()).hexdigest()
    if digest != DEB_SHA256:
        sys.exit(f"{deb}: sha256 {digest} is not the pinned {DEB_SHA256}")
    root = out / "docs-sqlite"
    shutil.rmtree(root, ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["dpkg-deb", "-x", str(deb), scratch], check=True)
        docs = Path(scratch) / "usr/share/doc/sqlite3"
        for path in sorted(docs.rglob("*.html")):
            rel = path.relative_to(docs).as_posix()
            if rel != "faq.html" and not rel.startswith("releaselog/"):
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, root / rel)
        faq = (docs / "faq.html").read_text(encoding="utf-8", errors="replace")
    queries = []
    for number, body in _QUESTION.findall(faq):
        head, _, answer = body.partition("</")  # the question is the text up to its first closing tag
        question = re.sub(r"^\(\d+\)\s*", "", plain(head))
        linked = dict.fromkeys(link for link in _LINK.findall(answer) if link not in _SKIP)
        relevant = [{"path": link} for link in linked if (root / link).is_file()]
        if relevant and len(question.split()) >= 3:
            queries.append({"qid": f"sqlite:q{number}", "query": question, "relevant": relevant})
    with (out / "docs-sqlite.jsonl").open("w", encoding="utf-8") as fh:
        for q in queries:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    return len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deb", type=Path, required=True, help="sqlite3-doc_3.40.1-2+deb12u2_all.deb")
    parser.add_argument("--out", type=Path, default=HERE / ".cache")
    args = parser.parse_args()
    print(f"{build(args.deb, args.out)} queries in {args.out / 'docs-sqlite.jsonl'}", file=sys.stderr)


if __name__ == "__main__":
    main()
