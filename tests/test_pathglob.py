"""`--path` globs: what they match, and that no pattern can make matching run for long."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest

from mindex.pathglob import _REGEX, _automaton_match, _tokens, glob_match


@pytest.mark.parametrize("pattern, path, expected", [
    ("*.md", "guide/retries.md", True), ("guide/**", "guide/a/b.md", True), ("guide/*", "guide/a/b.md", False),
    ("**/b.md", "b.md", True), ("**/b.md", "guide/a/b.md", True), ("src/**/x.py", "src/x.py", True),
    ("s?c/*.py", "src/x.py", True), ("s?c/*.py", "s/c/x.py", False), ("*a*a*a*b", "aaab", True),
    ("*a*a*a*b", "xaayb", False), ("**a**a**b", "a/a/b", True), ("**a**a**b", "a/a/c", False), ("./x.py", "x.py", True),
    ("docs/", "docs/a/b.md", True),
])
def test_globs_match_what_they_look_like(pattern: str, path: str, expected: bool) -> None:
    assert glob_match(pattern, path) is expected


def test_the_automaton_agrees_with_the_regex_on_random_globs() -> None:
    rng = random.Random(11)
    pieces = ["a", "b", "/", "*", "**", "**/", "?", "."]
    for _ in range(20_000):
        pattern = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 7)))
        path = "".join(rng.choice("ab/.") for _ in range(rng.randint(0, 9)))
        tokens = _tokens(pattern)
        regex = re.compile("".join(_REGEX.get(t, re.escape(t)) for t in tokens) + r"\Z", re.DOTALL)
        assert _automaton_match(tokens, path) == bool(regex.match(path)), (pattern, path)


def test_a_glob_of_many_stars_answers_at_once() -> None:
    """As a regex, `*a*a...*b` tries every way to split the path (minutes for one path);
    a child process bounds the test if that ever comes back."""
    code = ("from mindex.pathglob import glob_match; p = 'a' * 30 + '/' + 'a' * 25 + '/' + 'a' * 40 + '.py'; "
            "print(glob_match('*a' * 16 + '*b', p), glob_match('**a' * 14 + '**b', p), glob_match('**a' * 14 + '**y', p))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.stdout.split() == ["False", "False", "True"], done.stderr
