"""RE2 finds the lines a regex may match; Python's `re` decides: the lines reported are exactly
those `re` finds line by line, for any pattern, flags and text."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mindex import Index
from mindex.grep import compile_pattern, risky
from mindex.grep_scan import (RunScan, compile_loose, first_match, literals_of, loose_engine, loosen, run_of, scan_lines,
                              scan_literal)

# Lines with what tells engines apart: Unicode letters and digits (word characters to Python,
# not to RE2's `\w`), case pairs outside ASCII (ſ folds to s, the Kelvin sign to k), tabs,
# carriage returns, no-break and other Unicode spaces, and code.
TEXT = "\n".join([
    "def parse_001(self, value):  # TODO: café",
    "    return None",
    "class Ärger_123(ValueError): pass",
    "x = 'ſtraße' + \"KELVIN \u212a\" + '٣٤٥_678'",
    "\tif a\u00a0and b:\r",
    "",
    "    ",
    "naïve_999 = [A_VERY_LONG_NAME, B]",
    "αβγ δεζ = 42  # ﬁle",
    "  self.assertEqual(x, 'x'); os.path.join(a, b)",
    "aaaaaaaaaaaaaaab",
    "end\u2028same line",
    "İNFO: ılık SKİ  # dotted and dotless i fold to i in `re`",
]) + "\n"

DATA = TEXT.encode()  # as the store keeps a file's text

ATOMS = [r"\w", r"\d", r"\s", r"\W", r"\D", r"\S", ".", "[a-f]", "[^x ]", "[A-Z_]", "[é0-9]", "a", "e", "s", "k",
         "i", "I", "[h-j]", "[K]", "[r-t]",
         "_", "é", "ß", "K", "1", r"\(", " ", ":", "'", r"\t", r"\r", "[^\\w\\s]", "[[:x]"]
QUANTIFIERS = ["", "", "", "+", "*", "?", "{2}", "{1,3}", "+?", "*+", "{3,}"]


def _pattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.1 and depth < 2:
            part = "(" + "|".join(_pattern(rng, depth + 1) for _ in range(rng.randint(1, 3))) + ")"
        elif roll < 0.14:
            part = rng.choice([r"\b", r"\B", "^", "$", r"\A", r"\Z", "(?=a)", "(?!_)", "(?<=_)", "(?<!x)"])
        elif roll < 0.16 and depth < 2:
            part = "(?i:" + _pattern(rng, depth + 1) + ")"
        else:
            part = rng.choice(ATOMS)
        parts.append(part + (rng.choice(QUANTIFIERS) if part not in ("^", "$") and not part.startswith("(?")
                             and not part.startswith("\\b") else ""))
    return "".join(parts)


def _per_line(regex: re.Pattern[str], text: str) -> list[tuple[int, int, str]]:
    """The truth: each line's first match, as ripgrep reports lines."""
    rows = text.split("\n")
    if rows[-1] == "":
        rows.pop()
    return [(n, m.start() + 1, row) for n, row in enumerate(rows, start=1) if (m := regex.search(row))]


def test_the_lines_found_through_re2_are_those_python_finds_line_by_line() -> None:
    rng = random.Random(20261127)
    checked = runs = 0
    for _ in range(3000):
        pattern = _pattern(rng)
        try:
            regex = compile_pattern(pattern, ignore_case=rng.random() < 0.25)
        except Exception:
            continue  # not a valid Python regex: grep refuses it before any scan
        if risky(regex):
            continue  # may backtrack for ages in `re` on the long line of a's, the truth here
        engine = loose_engine(regex.pattern, regex.flags)
        if engine is None:
            continue
        checked += 1
        truth = _per_line(regex, TEXT)
        assert scan_lines(engine, regex, DATA) == truth, (pattern, loosen(regex.pattern, regex.flags))
        run = run_of(regex.pattern, regex.flags, rare=1.0)  # any run, however common
        if run is not None:
            runs += 1
            assert scan_lines(engine, regex, DATA, RunScan(run)) == truth, (pattern, run)
            assert scan_lines(engine, regex, DATA, RunScan(run, direct=True)) == truth, (pattern, run)
            spent = RunScan(run)
            spent.balance = 0.0  # gives the run up at its first miss, mid-file
            assert scan_lines(engine, regex, DATA, spent) == truth, (pattern, run)
    assert checked > 1500, "most generated patterns take the RE2 path"
    assert runs > 1000, "most have a run of one class"


@pytest.mark.parametrize(("pattern", "flags", "line_numbers"), [
    (r"\w+_\d{3}\b", 0, [1, 3, 4, 8]),  # Ärger_123, '٣٤٥_678': Unicode word characters and digits
    # a line start then a literal: RE2 looks for the literal anywhere, `re` keeps line starts
    (r"^class \w+", 0, [3]), (r"^ValueError", 0, []), (r"^self\.", 0, []), (r"^  self\.assert", 0, [10]),
    (r"(?i)KELVIN k", 0, [4]),  # K and the Kelvin sign fold together in `re`
    (r"STRASSE|ſtraße", re.IGNORECASE, [4]),
    (r"\s+$", 0, [5, 7]),  # \s takes the \r and blanks, never the line end
    (r"a\u00a0and", 0, [5]),
    (r"(\w)\1{5}", 0, [11]),  # a back-reference: RE2 looks for any text, `re` checks
    (r"(?<=self\.)assert\w+", 0, [10]),  # a lookbehind: dropped for RE2, kept by `re`
    (r"same", 0, [12]),  # U+2028 is no line end to grep
    (r"caf\w\b", 0, [1]),  # é ends a word for `re`; RE2's ASCII `\b` would not see the boundary
])
def test_unicode_and_what_re2_cannot_express_are_decided_by_python(pattern: str, flags: int,
                                                                   line_numbers: list[int]) -> None:
    regex = re.compile(pattern, flags | re.MULTILINE)
    engine = loose_engine(regex.pattern, regex.flags)
    assert engine is not None
    found = scan_lines(engine, regex, DATA)
    assert found is not None
    assert [n for n, _, _ in found] == line_numbers == [n for n, _, _ in _per_line(regex, TEXT)]


def test_a_run_of_one_class_is_found_by_mapping_bytes_when_it_is_rare() -> None:
    """`[A-Z_]{12,}` has no literal for RE2 to skip by: lines without twelve capitals or
    underscores in a row are passed over by `bytes.find` on the mapped bytes; a run common in
    code is not used, and a run that stops paying is given up."""
    table, needle = run_of(r"[A-Z_]{12,}", re.MULTILINE) or (b"", b"")
    assert needle == b"\x01" * 12 and {code for code in range(256) if table[code]} == {*range(65, 91), 95}
    assert run_of(r"\w+_\d{3}\b", re.MULTILINE) is None  # three digits in a row are common in code
    assert run_of(r"\w+_\d{3}\b", re.MULTILINE, rare=1.0) is not None
    for common in (r"\w+", r"\s+$", r"[a-z]{3}", r"(?i)[A-Z_]{12,}", r"(\w)\1", "x|y+"):
        assert run_of(common, re.MULTILINE) is None, common
    _, needle = run_of(r"[A-F0-9]{8}(?:-[A-F0-9]{4}){3}", re.MULTILINE) or (b"", b"")
    assert len(needle) == 8 + 3 * 5  # the whole stretch: each group's dash joins the class
    assert run_of("\u00e9{9}", re.MULTILINE) is not None  # outside ASCII: every byte ≥ 0x80 is marked
    regex = re.compile(r"[A-Z_]{12,}", re.MULTILINE)
    engine = loose_engine(regex.pattern, regex.flags)
    assert engine is not None
    noise = "\n".join(["x = CONSTANT_NAME_TOO_LONG"] + ["ABCDEFGHIJKLMNOP" if n % 2 else "lower case words" for n in range(4000)])
    scan = RunScan(run_of(regex.pattern, regex.flags) or (b"", b""))
    assert scan_lines(engine, regex, noise.encode(), scan) == _per_line(regex, noise) and scan.paying()
    # every other line holds the run (thirteen of A-Z, _ and x) and no match: given up
    regex = re.compile(r"[A-Z_]{12,}x", re.MULTILINE)
    engine = loose_engine(regex.pattern, regex.flags)
    assert engine is not None
    misses = "\n".join(["ABCDEFGHIJKLMN" if n % 2 else "a" for n in range(4000)] + ["A_LONG_NAME_HEREx"])
    scan = RunScan(run_of(regex.pattern, regex.flags) or (b"", b""))
    data = misses.encode()
    ends: list[int] = []

    def finder(text: bytes, pos: int, end: int) -> int:
        ends.append(end)
        return engine(text, pos, end)
    assert scan_lines(finder, regex, data, scan) == _per_line(regex, misses) != []
    assert not scan.paying()
    assert len(data) in ends and len(ends) < 1000, "RE2 alone, over the rest of the file, once the run is given up"


def test_the_case_partners_outside_ascii_are_every_one_re_knows() -> None:
    """A folded ASCII class admits only FOLD_PARTNERS outside ASCII: exactly the non-ASCII
    characters Python's `re` matches for an ASCII one under IGNORECASE, over every code point."""
    from mindex.grep_scan import FOLD_PARTNERS

    any_ascii = re.compile("[\x00-\x09\x0b-\x7f]", re.IGNORECASE)
    folds: dict[int, set[int]] = {}
    for code in range(0x80, 0x110000):
        if 0xD800 <= code <= 0xDFFF or not any_ascii.fullmatch(chr(code)):
            continue
        for ascii_code in range(128):
            if ascii_code != 10 and re.fullmatch(re.escape(chr(ascii_code)), chr(code), re.IGNORECASE):
                folds.setdefault(ascii_code, set()).add(code)
    assert {k: set(v) for k, v in FOLD_PARTNERS.items()} == folds
    assert loosen("todo", re.IGNORECASE) == r"(?m)[\x{54}\x{74}][\x{4f}\x{6f}][\x{44}\x{64}][\x{4f}\x{6f}]"


def test_patterns_without_a_loose_form_and_text_that_is_not_utf8_take_the_old_way() -> None:
    assert loose_engine("^$", re.MULTILINE) is None  # matches the empty string: every line a candidate
    assert loose_engine(r"x*", re.MULTILINE) is None
    assert loose_engine(r"foo\n", re.MULTILINE) is None  # a literal line end (ripgrep refuses it too)
    assert loose_engine(r"(?:a{900}){900}", re.MULTILINE) is None  # RE2 refuses a program that large
    deep = "(" * 300 + "a" + ")" * 300  # `re` compiles it; writing its loose form would recurse too deep
    assert compile_pattern(deep).search("a") and loose_engine(deep, re.MULTILINE) is None
    engine = loose_engine("bad", re.MULTILINE)
    # a lone surrogate as the store keeps it (UTF-8 with surrogates passed through), while
    # Hangul, which shares the lead byte, is searched
    stored = "a bad \udc80 byte\n".encode("utf-8", "surrogatepass")
    assert scan_lines(engine, re.compile("bad"), stored) is None
    assert scan_lines(engine, re.compile("bad"), "\ud55c bad\n".encode()) == [(1, 3, "\ud55c bad")]
    assert loosen(r"\bx{2,5000}\b(?=y)", re.MULTILINE) == "(?m)(?:x){2,}"


GREP_WITHOUT_RE2 = """
import json, sys
if sys.argv[2] == "without":
    sys.modules["re2"] = None  # as if the wheel were missing
from mindex import Index, IndexSettings
from mindex.config import EmbedSettings
ix = Index(sys.argv[1], IndexSettings(workers=1), embed=EmbedSettings(provider="none"))
out = {}
for pattern in json.loads(sys.argv[3]):
    out[pattern] = [(m.path, m.line, m.column, m.text, m.chunk_id, m.symbol)
                    for m in ix.grep(pattern, limit=10_000, before=1).matches]
print(json.dumps(out))
"""


def test_grep_without_the_re2_wheel_reports_the_same_lines(index: Index, tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "mixed.py").write_text(TEXT.replace("\r", ""), encoding="utf-8")
    index.add_source(tmp_path / "repo", name="repo", kind="code")
    index.index()
    patterns = [r"\w+_\d{3}\b", r"\s+$", r"(?i)kelvin", r"[A-Z_]{6,}", r"\bNone\b", r"(\w)\1{5}", r"parse_\w+\("]
    runs = {}
    for mode in ("with", "without"):
        done = subprocess.run([sys.executable, "-c", GREP_WITHOUT_RE2, str(index.location), mode, json.dumps(patterns)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        runs[mode] = json.loads(done.stdout)
    assert runs["with"] == runs["without"]
    assert all(runs["with"][p] for p in patterns), "each pattern matches the file"


def test_the_public_search_finds_the_same_lines_as_the_direct_call() -> None:
    """The scan calls the wheel's compiled object directly (a private call, for speed); a
    release without it goes through the public `search`, with the same lines."""
    regex = compile_pattern(r"\w+_\d{3}\b")
    engine = compile_loose(regex.pattern, regex.flags)

    class PublicOnly:  # the wheel's public surface, nothing private
        def search(self, data: bytes, pos: int, end: int) -> object:
            return engine.search(data, pos, end)

    direct = scan_lines(first_match(engine), regex, DATA)
    assert direct and scan_lines(first_match(PublicOnly()), regex, DATA) == direct


@pytest.mark.parametrize(("pattern", "fixed", "texts"), [
    (r"self\.assertEqual\(", False, ("self.assertEqual(",)), ("os.path.join(", True, ("os.path.join(",)),
    ("café", False, ("café",)), ("_", False, ("_",)), ("ſtraße", False, ("ſtraße",)), ("a", False, ("a",)),
    ("\u2028same", False, ("\u2028same",)), ("B]", True, ("B]",)), ("[n]a[ï]ve", False, ("naïve",)),
    ("TODO|KELVIN", False, ("KELVIN", "TODO")), ("(?:Ärger|naïve)_\\d", False, None),
    ("(?:Ärger|naïve)_", False, ("naïve_", "Ärger_")), ("value|val|va", False, None),  # three strings
    ("value|val", False, ("val",)),  # `val` finds both
    ("s(?:elf|traße)", False, ("self", "straße")), ("[ab]c", False, ("ac", "bc")), ("café|a", False, ("a",)),
    ("TODO|FIXME|XXX", False, None),  # three strings: RE2's one pass is as fast as three
])
def test_fixed_strings_are_found_without_a_regex_engine_on_the_lines_re_finds(
        pattern: str, fixed: bool, texts: tuple[str, ...] | None) -> None:
    regex = compile_pattern(pattern, fixed=fixed)
    assert literals_of(regex.pattern, regex.flags) == texts
    if texts is not None:
        assert scan_literal(texts, DATA) == _per_line(regex, TEXT)
    # the last line without a line end, and a line holding the string twice: its first column
    assert scan_literal(("ab",), b"x ab ab\nab") == [(1, 3, "x ab ab"), (2, 1, "ab")]
    assert scan_literal(("ab", "x"), b"x ab ab\nab\nzz x") == [(1, 1, "x ab ab"), (2, 1, "ab"), (3, 4, "zz x")]
    assert scan_literal(("ab",), "\ud55c ab".encode("utf-8", "surrogatepass")) == [(1, 3, "\ud55c ab")]
    assert scan_literal(("ab",), "\udc80 ab\n".encode("utf-8", "surrogatepass")) is None  # not UTF-8: `re`'s way


@pytest.mark.parametrize(("pattern", "options"), [
    ("self", {"ignore_case": True}), ("self", {"word": True}), (r"a\.b*", {}), ("a.b", {}), ("(?i)abc", {}),
    ("(?i:abc)d", {}), (r"x\n", {}), ("", {}), (r"^def", {}), ("ab?", {}), ("a|", {}), ("(?:a|b)?c", {}),
    ("[^a]b", {}), ("[a-c]d", {}),
])
def test_only_a_pattern_of_a_few_fixed_strings_skips_the_regex_engines(pattern: str,
                                                                       options: dict[str, bool]) -> None:
    regex = compile_pattern(pattern, **options)
    assert literals_of(regex.pattern, regex.flags) is None
