"""Search over code and docs together: does each kind's answer survive the other kind's chunks?

A project registers its code and its docs as two sources of one index (`mindex add .` and
`mindex add docs`), and `mindex search` ranks both in one list. The dev sets are each of one
kind, so nothing there checks that list. Here the corpora of three sets go into one index
as three sources: `code` (rich, attrs, jinja2, lodash: code), `docs` (SQLAlchemy's
reStructuredText) and `docs-md` (black's and hatch's markdown), and each set's own queries
(built by devset.py: docstrings for code, FAQ questions and how-to titles for docs) are
asked of the whole index, judged as in their own set (the paths of the three corpora do not
collide). A set's score here beside its score in its own index (bench_quality.py) is what
the other kind's chunks cost it.

    python benchmarks/devset.py                  # the corpora (once)
    python benchmarks/bench_mixed.py [--modes default,hybrid,hybrid-rrf] [--fresh]
    python benchmarks/bench_mixed.py --sets code-go code-ts docs-html   # a second mix

`--one-source` puts the corpora in one folder registered as one code source instead (each
corpus a subfolder), as `mindex add .` registers a repository whose docs live beside its
code; the folder's name is taken off each result's path before it is judged.

    python benchmarks/bench_mixed.py --one-source

Other sets mix the same way (`--sets`; a set judged by file, as the git manual's pages, has
its results grouped by file as in bench_quality.py). Each mix's index is kept in
benchmarks/.work/quality/mixed-<sets>.db (embedding is the slow part).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

from bench_quality import CORPUS, DEPTH, SETS, WORK, run  # noqa: E402
from mindex import Index, IndexSettings  # noqa: E402
from mindex.config import EmbedSettings, SearchSettings  # noqa: E402
from mindex.evaluate import load_queries, ranked, score_run  # noqa: E402
from mindex.search import file_order  # noqa: E402

PARTS = ("code", "docs", "docs-md")


def mixed_index(parts: list[str], fresh: bool, one_source: bool = False) -> Index:
    """One index of the sets' corpora, one source each or (`one_source`) one code source of
    a folder holding each corpus as a subfolder named after its set (kept between runs)."""
    name = ("one-" if one_source else "mixed-") + "-".join(parts)
    db = WORK / f"{name}.db"
    WORK.mkdir(parents=True, exist_ok=True)
    if fresh:
        for stale in WORK.glob(f"{name}.db*"):
            stale.unlink()
    index = Index(db, IndexSettings(), embed=EmbedSettings(provider="onnx"), search=SearchSettings())
    if not index.sources() and one_source:
        folder = WORK / name
        if not folder.exists():
            for part in parts:  # hard links: the corpora's own files, no copy
                shutil.copytree(CORPUS / SETS[part].folder, folder / part, copy_function=os.link)
        index.add_source(folder, name="project", kind="code")
    if not index.sources():
        for part in parts:
            spec = SETS[part]
            index.add_source(CORPUS / spec.folder, name=part, kind="docs" if spec.kind == "docs" else "code")
    started = time.perf_counter()
    index.index()
    print(f"  mixed: index up to date in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default="default,hybrid,hybrid-rrf")
    parser.add_argument("--sets", nargs="+", default=list(PARTS), choices=[n for n, s in SETS.items() if s.kind != "memory"])
    parser.add_argument("--fresh", action="store_true", help="index the corpora again from scratch")
    parser.add_argument("--one-source", action="store_true", help="the corpora as subfolders of one code source")
    args = parser.parse_args()
    parts = args.sets
    index = mixed_index(parts, args.fresh, args.one_source)
    chunks = index.status()["chunks"]
    asked = {name: load_queries(SETS[name].queries / f"{name}.jsonl") for name in parts}
    metric = {name: SETS[name].metric for name in parts}
    print(f"One index of {', '.join(parts)}{' in one code source' if args.one_source else ''}: {chunks:,} chunks; each set's main metric (recall@10) on its queries.\n")
    print("| mode | " + " | ".join(f"{name} ({len(asked[name])}): {metric[name]}" for name in parts) + " |")
    print("| --- | " + " | ".join("---:" for _ in parts) + " |")
    for variant in args.modes.split(","):
        mode = variant.removesuffix("-rrf")
        fusion = "rrf" if variant.endswith("-rrf") else "learned" if variant == "hybrid" else SearchSettings().fusion
        index.search_settings = SearchSettings(fusion=fusion)

        def search(query, mode: str = mode, files: bool = False):  # type: ignore[no-untyped-def]
            found = index.search(query.text, DEPTH if files else 10, mode=None if mode == "default" else mode)
            if args.one_source:  # `<set>/path` in the one source: judged as the set's own `path`
                found = dataclasses.replace(found, hits=tuple(dataclasses.replace(h, path=h.path.partition("/")[2])
                                                         for h in found.hits))
            if not files:
                return ranked(found.hits)
            # files in `mindex locate`'s order, as bench_quality.py asks a which-file question
            place = {f: n for n, f in enumerate(file_order(found.hits, found.mode == "hybrid" and found.fusion == "learned"))}
            return ranked(tuple(sorted(found.hits, key=lambda h: place[(h.source, h.path)])))

        cells = []
        for name in parts:
            files = SETS[name].files
            runs = run(lambda q: search(q, files=files), asked[name], files)
            scored = score_run(variant, asked[name], runs).metrics()
            cells.append(f"{scored[metric[name]]:.4f} ({scored['recall@10']:.3f})")
        print(f"| mindex {variant} | " + " | ".join(cells) + " |", flush=True)
    index.close()


if __name__ == "__main__":
    main()
