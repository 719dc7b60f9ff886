"""What a folder holds, for `mindex add` without `--kind`: code or docs.

A docs source reads Markdown, reStructuredText, HTML, text and PDF files and nothing else, so
a folder of Python added as docs was indexed as its few Markdown files, and a search for its
code found nothing, without a word said. The guess counts the files a docs source would read
against the source files of a language mindex parses (data and style files, such as JSON,
YAML, TOML and CSS, count for neither). A code source reads a repository's Markdown,
reStructuredText and text files as docs too (ranked as docs, found by `--kind docs`); only HTML
and PDF files does it read otherwise. So a project (a `pyproject.toml`, `package.json`,
`go.mod`, ... at its top) is code when its files of code outnumber its HTML and PDF files,
whatever its Markdown: pytest's sdist, 266 files of code beside 271 of reStructuredText and
Markdown, was added as docs and its code never read. A folder that is no project (a `docs/`
with its Sphinx `conf.py`) is code when its code outnumbers all its docs. It looks at the
files of a walk, a level of folders at a time, until `LOOK_AT` files of code or docs are counted
or `MAX_FOLDERS` folders listed; the walk skips tooling, vendored and hidden folders and follows
no link. An explicit `--kind` is never second-guessed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache

from mindex.parse import BINARY_SUFFIXES, PARSERS
from mindex.sources.walk import SKIP_DIRS

LOOK_AT = 20_000  # files of code or docs counted, checked after each level of folders
MAX_FOLDERS = 5_000  # folders listed at most
NOT_CODE = frozenset({"markdown", "html", "css", "scss", "yaml", "toml", "json"})
# Files at a folder's top that make it a project of code, whatever its docs.
MANIFESTS = ("pyproject.toml", "setup.py", "setup.cfg", "package.json", "go.mod", "Cargo.toml", "pom.xml",
             "build.gradle", "build.gradle.kts", "Gemfile", "composer.json", "mix.exs", "CMakeLists.txt",
             "meson.build", "Package.swift", "pubspec.yaml", "build.sbt", "deno.json", "dune-project")


@dataclass(frozen=True)
class Guess:
    """The kind a folder looks like, and the counts that say so."""

    kind: str  # "code" or "docs"
    code_files: int
    doc_files: int
    project: str | None = None  # the manifest that made a folder of many docs a project of code

    def reason(self) -> str:
        """Why, in a few words (for `mindex add`'s message)."""
        said = (f"{self.code_files:,} source file{'s' * (self.code_files != 1)} of code, "
                f"{self.doc_files:,} of docs")
        return f"{said}, a project with {self.project}" if self.project else said


@cache
def _code_names() -> tuple[frozenset[str], frozenset[str]]:
    """The suffixes and file names of the languages whose files are code."""
    from mindex.languages import LANGUAGES

    code = [lang for lang in LANGUAGES if lang.name not in NOT_CODE]
    return (frozenset([*(s for lang in code for s in lang.suffixes), ".ipynb"]),  # a notebook is code
            frozenset(n for lang in code for n in lang.filenames))


def guess_kind(folder: str | os.PathLike[str]) -> Guess:
    """Code when the folder's source files of code outnumber its docs files, or when it is a
    project whose code outnumbers its HTML and PDF files; else docs (also for a folder that is
    missing or unreadable: adding it says why)."""
    from mindex.languages import PROSE_SUFFIXES

    doc_suffixes = {*PARSERS, *BINARY_SUFFIXES} - {".ipynb"}  # a notebook counts as code (a docs source reads it too)
    code_suffixes, code_names = _code_names()
    code = docs = only_docs = looked = 0
    # A level of folders at a time, each level whole: a repository's `docs/` and `src/` are
    # both counted before either's subfolders, whatever their names and sizes (depth first,
    # a large `docs/` would use up the files looked at before `src/` is reached). A list of
    # folders, not recursion: a folder nested thousands deep is no reason to fail.
    level = [os.fspath(folder)]
    while level and code + docs < LOOK_AT and looked < MAX_FOLDERS:
        below: list[str] = []
        for path in level[:MAX_FOLDERS - looked]:
            looked += 1
            try:
                with os.scandir(path) as listing:
                    entries = sorted(listing, key=lambda entry: entry.name)
            except OSError:  # missing, unreadable, or past the system's path limit
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):  # a link to a folder is not followed
                        if entry.name not in SKIP_DIRS and not entry.name.startswith("."):
                            below.append(entry.path)
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue
                except OSError:
                    continue
                suffix = os.path.splitext(entry.name)[1].lower()
                if suffix in doc_suffixes:
                    docs += 1
                    only_docs += suffix not in PROSE_SUFFIXES  # HTML, PDF: a code source reads them otherwise
                elif suffix in code_suffixes or entry.name in code_names:
                    code += 1
        level = below
    if code > docs:
        return Guess("code", code, docs)
    project = next((name for name in MANIFESTS if os.path.isfile(os.path.join(folder, name))), None)
    if project is not None and code > only_docs:
        return Guess("code", code, docs, project)
    return Guess("docs", code, docs)
