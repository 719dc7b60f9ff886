"""Test files, and questions about them: a test file is rarely the answer to a question about
the code, though it holds the same names and words as the code it tests.

`search` and `locate` rank a test file's chunks lower unless the question is about tests (it
names a test, a fixture, a test run's failure, coverage, ...). Measured on the loc-tests dev
set (three projects' trees with their tests, commit messages as questions; benchmarks/README.md):
file Recall@1 on questions about code 0.207 → 0.352, Recall@10 0.690 → 0.746; questions about
tests unchanged.
"""

from __future__ import annotations

import math
import re

from mindex.models import Hit
from mindex.search import weighed


# A folder of tests, or a file named as a test in the common conventions (Python, Go, JS/TS,
# Java/Kotlin/C#, Ruby, Rust's tests/ folder, C and C++, Perl's `t/` and `xt/` and `.t`).
_TEST_DIR = re.compile(r"(?:^|/)(?:tests?|__tests__|testing|spec|specs|testdata|test_?utils?)/|^x?t/", re.IGNORECASE)
_TEST_FILE = re.compile(
    r"(?:^|/)(?:test_[^/]*|[^/]*_tests?\.[a-z]+|conftest\.py|[^/]*\.(?:test|spec)\.[a-z]+|[^/]*_spec\.rb|[^/]*\.t"
    r"|[^/]*Tests?\.(?:java|kt|cs|scala|swift|php)|tests?\.(?:py|rs|go|c|cc|cpp|h))$")
# Words that make a question about tests: a test, a fixture, a run, a failure in one, coverage.
_ABOUT_TESTS = re.compile(
    r"\b(?:tests?|testing|tested|testcase|unittests?|pytest|tox|nox|fixtures?|conftest|flaky|flakiness|mock(?:s|ed|ing)?"
    r"|assert(?:s|ion|ions)?|coverage|xfail|parametri[sz]ed?|test_\w+|\w+_test|Test[A-Z]\w*|spec)\b")


def is_test_path(path: str) -> bool:
    """Whether a file path (relative, `/`-separated) is a test by its folder or name."""
    return bool(_TEST_DIR.search(path) or _TEST_FILE.search(path))


def about_tests(query: str) -> bool:
    """Whether a question asks about tests: it names a test, a fixture, a test run."""
    return bool(_ABOUT_TESTS.search(query))


def tests_last(hits: list[Hit], query: str, logits: bool, penalty: float) -> list[Hit]:
    """Code hits from test files ranked down, their odds (their score, outside the learned
    fusion) divided by e^`penalty` (`search.test_penalty`), unless the question is about tests;
    re-sorted, stable."""
    tests = [bool(h.language and is_test_path(h.path)) for h in hits]
    if not penalty or not any(tests) or about_tests(query):
        return hits
    factor = math.exp(-penalty)
    out = [hit.but(score=weighed(hit.score, factor, logits),
                   explain={**(hit.explain or {}), "test_file": round(factor, 4)}) if test else hit
           for hit, test in zip(hits, tests, strict=True)]
    return sorted(out, key=lambda h: -h.score)
