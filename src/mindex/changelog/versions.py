"""Versions compared by their scheme: semver and its relatives (`v1.2.3`, `0.40`, `1.0.0-beta.2`,
`2.1.240`), calendar versions (`2024.11.3`, `24.1`), dates (`2026-08-07`), Debian versions
(`1:2.39.5-0+deb12u3`: the epoch first). A version becomes a sortable string key, so a range
filter is an indexed string comparison in SQL: `0.40` < `0.40.1` < `0.41` < `1.0.0-rc.1` < `1.0.0`.
"""

from __future__ import annotations

import re

PARTS = 5  # numeric parts compared; more are folded into the last
_NUM = re.compile(r"\d+")
# the longer words first: `beta2` is beta 2, not b 0 (1.3-beta2 and 1.3-beta3 sorted as one)
_PRE = re.compile(r"(?i)(?:^|[.\-_+~]|(?<=\d))(dev|alpha|beta|preview|pre|rc|canary|nightly|next|a|b|c)\.?(\d*)")
_PRE_RANK = {"dev": 0, "nightly": 0, "canary": 0, "next": 0, "a": 1, "alpha": 1, "b": 2, "beta": 2, "pre": 3,
             "preview": 3, "c": 4, "rc": 4}


# Pre-releases a changelog may write after a space (gson's `Version 1.3 beta3`).
SPACED_PRE = r"(?i:alpha|beta|rc|pre|preview|dev)"


def clean(version: str) -> str:
    """The version as written, without a leading `v`, a product name or surrounding space; a
    pre-release written after a space joined by a hyphen (`1.3 beta3` is `1.3-beta3`)."""
    text = version.strip().strip("[]()")
    text = re.sub(r"^(?:release|version|ver\.?|v(?=\d))\s*", "", text, flags=re.IGNORECASE)
    return re.sub(rf"(?<=\d)[ \t]+(?={SPACED_PRE}\.?\d*$)", "-", text.strip())


def key(version: str) -> str:
    """A string that sorts like the version. Pre-releases sort before their release; text
    without any digit sorts first (after nothing)."""
    text = clean(version)
    epoch = 0
    m = re.match(r"^(\d+):(.+)$", text)  # Debian epoch
    if m:
        epoch, text = int(m.group(1)), m.group(2)
    main, _, _ = text.partition("+")  # build metadata does not order
    pre = _PRE.search(main)
    release_part = main[: pre.start()] if pre else main
    numbers = [int(n) for n in _NUM.findall(release_part)[:12]]
    if not numbers:
        return "0" * 4
    numbers = numbers[: PARTS - 1] + [sum(numbers[PARTS - 1:])] if len(numbers) > PARTS else numbers
    numbers += [0] * (PARTS - len(numbers))
    head = f"{min(epoch, 9999):04d}." + ".".join(f"{min(n, 10**12 - 1):012d}" for n in numbers)
    if pre:
        rank = _PRE_RANK.get(pre.group(1).lower(), 3)
        return f"{head}!{rank}{int(pre.group(2) or 0):08d}"
    return f"{head}~"


def compare(a: str, b: str) -> int:
    """-1, 0 or 1 as version a is before, equal to or after b."""
    ka, kb = key(a), key(b)
    return (ka > kb) - (ka < kb)


def looks_like_version(text: str) -> bool:
    """True for `1.2`, `v0.40.1`, `2024-11-03`, `1:2.39.5-0+deb12u3`; not for plain words."""
    return bool(re.match(r"^\s*(?:v|version\s+)?\d+(?:[.:-]\d+)+", text.strip(), flags=re.IGNORECASE)) or \
        bool(re.match(r"^\s*v\d+\s*$", text.strip()))
