"""How well changelogs are read: the change classifier and the date reader, on the real
changelogs of `tests/fixtures/changelog/native` (eleven projects, seven formats; origins in
its ORIGIN.md).

    python benchmarks/bench_changelog_quality.py [--json]

Kinds. Where a project files its changes under sections that name a kind (`### Fixed`,
`Bug Fixes`, `Deprecations and Removals`, ...), the section is the project's own judgement:
each such change is classified from its text alone (`classify(text)`, as for a file without
sections, a GitHub release body or a feed) and compared with its section's kind. A section
that names no single kind (`Changes`, `Other`, `Preview style`) gives no judgement. Reported
per file: judged changes, accuracy, and the most common confusion. Sections are also read by
`classify(text, section)` when mindex ingests; that path is right by construction.

Dates. Each release heading that holds a year (19xx or 20xx) should give a date; reported:
releases, headings with a year, dates read, and headings with a year but no date (misses).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "src"))

from mindex.changelog.parse import classify, section_kind, split_changes, split_releases  # noqa: E402

NATIVE = HERE.parent / "tests" / "fixtures" / "changelog" / "native"
# file: (its format, whether its changes were read while writing the classifier's rules).
# The rules were written looking at the first five only; the others are held out.
FILES = {
    "httpx-CHANGELOG.md": ("Keep a Changelog, bold sections, ordinal dates", True),
    "keep-a-changelog-CHANGELOG.md": ("Keep a Changelog", True),
    "anthropic-sdk-python-CHANGELOG.md": ("release-please", True),
    "attrs-CHANGELOG.md": ("towncrier (markdown)", True),
    "towncrier-NEWS.rst": ("towncrier (reStructuredText)", True),
    "structlog-CHANGELOG.md": ("Keep a Changelog (markdown)", False),
    "black-CHANGES.md": ("hand-written sections, no dates", False),
    "pip-NEWS.rst": ("towncrier (reStructuredText)", False),
    "setuptools-NEWS.rst": ("towncrier (reStructuredText), no dates", False),
    "pydantic-HISTORY.md": ("GitHub-generated, nested sections", False),
    "aider-HISTORY.md": ("bullets, no sections", False),
    "claude-code-CHANGELOG.md": ("bullets, no sections, no dates", False),
    "git-changelog.Debian": ("Debian changelog", False),
    "minitest-History.rdoc": ("RDoc, changes under labelled bullets (`* 7 bug fixes:`)", True),
    "magit-CHANGELOG.org": ("Org, no sections", True),
}
YEAR = re.compile(r"\b(?:19|20)\d{2}\b")


def heading_of(lines: list[str], version: str) -> str:
    """The first heading that names the version (what the release was read from): a markdown
    heading, an underlined reStructuredText title, or a Debian entry's first line."""
    bare = re.compile(rf"(?<![\w.])v?{re.escape(version)}(?![\w])")
    for n, line in enumerate(lines):
        underlined = n + 1 < len(lines) and re.fullmatch(r"([=\-~^])\1+", lines[n + 1].strip() or "x") is not None
        if bare.search(line) and (line.startswith(("#", "=", "* ")) or underlined or re.match(r"^\S+ \(", line)):
            return line
    return ""


def measure(name: str) -> dict[str, object]:
    text = (NATIVE / name).read_text(encoding="utf-8")
    releases = split_releases(text)
    judged = right = 0
    confused: Counter[tuple[str, str]] = Counter()
    for release in releases:
        for change in split_changes(release.body):
            truth = section_kind(change.section) if change.section else None
            if truth in (None, "changed"):
                continue
            own = change.text  # a change under a labelled bullet (`* 7 bug fixes:`) is read without the label
            if change.section and own.startswith(change.section + ": "):
                own = own[len(change.section) + 2:]
            guess = classify(own)
            judged += 1
            right += guess == truth
            if guess != truth:
                confused[(truth, guess)] += 1
    lines = text.replace("\r\n", "\n").split("\n")
    debian = name.endswith(".Debian")
    with_year = [r for r in releases if debian or YEAR.search(heading_of(lines, r.version))]
    dated = [r for r in releases if r.date is not None]
    missed = [r.version for r in with_year if r.date is None]
    return {"file": name, "format": FILES[name][0], "read": FILES[name][1], "releases": len(releases), "judged": judged,
            "accuracy": right / judged if judged else None,
            "confusion": ", ".join(f"{t}→{g} {n}" for (t, g), n in confused.most_common(2)),
            "headings_with_year": len(with_year), "dates": len(dated), "date_misses": missed[:5]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(name) for name in FILES]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print("| changelog | format | rules written on it | releases | changes judged by section | kind from text "
          "| most common misses (section→text) | headings with a year | dates read |")
    print("| --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: |")
    totals: dict[bool, list[int]] = {True: [0, 0], False: [0, 0]}
    for row in rows:
        acc = row["accuracy"]
        judged = int(row["judged"])  # type: ignore[call-overload]
        totals[bool(row["read"])][0] += judged
        totals[bool(row["read"])][1] += round(float(acc) * judged) if acc is not None else 0  # type: ignore[arg-type]
        print(f"| {row['file']} | {row['format']} | {'yes' if row['read'] else 'held out'} | {row['releases']} | "
              f"{judged} | {'—' if acc is None else f'{acc:.0%}'} | {row['confusion'] or '—'} | "
              f"{row['headings_with_year']} | {row['dates']} |")
    for read, (judged, right) in totals.items():
        print(f"\n{'Files the rules were written on' if read else 'Held-out files'}: {judged} judged changes, "
              f"kind from text right for {right / judged:.1%}.")


if __name__ == "__main__":
    main()
