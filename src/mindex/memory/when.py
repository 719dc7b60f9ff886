"""Dates in a memory query ("what did we decide last week", "on 10.01.2024", "in May") read
as a time window, so `memory search` filters by the entry's own time before top-k.

One expression is read per query, the first found, in the time zone of `now`:

- a day: `today`, `yesterday`, `N days ago`, `2024-01-10`, `10.01.2024`, `29 Dec 2023`,
  `January 6 2024`, `the 17th of January, 2024`, `May 2nd` (no year: the latest such day not
  after now); with `on`, `during` or nothing before it → that day;
- a week, month or year: `this|last week|month|year`, `in May`, `in January 2024`, `in 2017`,
  `N weeks|months ago`;
- a span up to now: `in the last|past N days|weeks|months`, `recently` is not read;
- `before X` → until the start of X; `since X`, `after X`, `from X` → from the start (after:
  the end) of X.

Every window opens 18 hours early and closes 42 hours late: what happened on a day is written
down that evening or over the next day or two, and plans the evening before. Measured on the
memory dev set (benchmarks/README.md): the exact window kept the evidence of only 26 of the 54
dated questions and lost ranking quality; with this slack nDCG@10 on them rose by a third,
and any slack from half a day to two days either side did about as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from mindex.models import SearchResult

MONTHS = {name: i for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec")), 1) for name in names}
_MONTH = r"(?P<{}>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{}>(?:19|20)\d\d)"
_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
        "eight": 8, "nine": 9, "ten": 10}
_N = r"(?P<n>\d{1,3}|" + "|".join(_NUM) + r")"
EARLY, LATE = timedelta(hours=18), timedelta(hours=42)

# Each pattern names what it reads; the first that matches (leftmost, then this order) wins.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [(name, re.compile(rx, re.IGNORECASE)) for name, rx in (
    ("iso", r"\b(?P<y>(?:19|20)\d\d)-(?P<m>[01]?\d)-(?P<d>[0-3]?\d)\b"),
    ("dotted", r"\b(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>(?:19|20)\d\d)\b"),
    ("day_month", r"\b(?:the\s+)?" + _DAY.format("d") + r"(?:\s+of)?\s+" + _MONTH.format("mon")
     + r"(?:,?\s+" + _YEAR.format("y") + r")?\b"),
    ("month_day", r"\b" + _MONTH.format("mon") + r"\s+" + _DAY.format("d") + r"(?:,?\s+" + _YEAR.format("y")
     + r")?\b(?!\s*(?::|am\b|pm\b))"),
    ("month", r"\b" + _MONTH.format("mon") + r"(?:,?\s+" + _YEAR.format("y") + r")?\b"),
    ("year", r"(?<![\d.-])" + _YEAR.format("y") + r"(?![\d.-])"),
    ("today", r"\b(?P<w>today|yesterday)\b"),
    ("ago", r"\b" + _N + r"\s+(?P<unit>day|week|month|year)s?\s+ago\b"),
    ("last_n", r"\b(?:in\s+|during\s+|over\s+|for\s+)?the\s+(?:last|past)\s+" + _N
     + r"\s+(?P<unit>day|week|month|year)s?\b"),
    ("this_last", r"\b(?P<which>this|last|previous|past)\s+(?P<unit>week|month|year)\b"),
)]
_BEFORE = re.compile(r"\b(?P<p>before|until|till|by|since|after|from|on|in|during|of)\s*$", re.IGNORECASE)
_MONTH_WORDS_NEED_CONTEXT = {"may", "mar", "jan", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "feb", "apr",
                             "sept", "march"}


@dataclass(frozen=True)
class Window:
    """A time window read from a query: [since, until) in epoch seconds (either may be open),
    the words it was read from, and the query without them."""

    since: float | None
    until: float | None
    phrase: str
    rest: str

    def describe(self, tz: object = None) -> str:
        """`'last week' → 2026-11-16 .. 2026-11-23`, for the result's note."""
        def day(t: float | None) -> str:
            return "…" if t is None else datetime.fromtimestamp(t, tz).strftime("%Y-%m-%d %H:%M")  # type: ignore[arg-type]
        return f"read {self.phrase!r} as {day(self.since)} to {day(self.until)}"


def _day(now: datetime, year: int | None, month: int, day: int) -> datetime | None:
    """Midnight of a day in now's zone; a day without a year is the latest one not after now."""
    try:
        if year is not None:
            return now.replace(year=year, month=month, day=day, hour=0, minute=0, second=0, microsecond=0)
        at = now.replace(month=month, day=day, hour=0, minute=0, second=0, microsecond=0)
        return at if at <= now else at.replace(year=now.year - 1)
    except ValueError:  # 31 February
        return None


def _month_start(now: datetime, year: int, month: int) -> datetime:
    return now.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)


def _add_months(at: datetime, months: int) -> datetime:
    index = at.year * 12 + at.month - 1 + months
    return at.replace(year=index // 12, month=index % 12 + 1, day=1)


def _span(name: str, m: re.Match[str], now: datetime) -> tuple[datetime, datetime] | None:
    """(start, end) of what one match names, or None if it names no real time."""
    g = m.groupdict()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if name in ("iso", "dotted", "day_month", "month_day"):
        month = int(g["m"]) if name in ("iso", "dotted") else MONTHS[g["mon"].lower()]
        if not 1 <= month <= 12:
            return None
        start = _day(now, int(g["y"]) if g.get("y") else None, month, int(g["d"]))
        return (start, start + timedelta(days=1)) if start else None
    if name == "month":
        month = MONTHS[g["mon"].lower()]
        if g.get("y"):
            year = int(g["y"])
        else:
            year = now.year if month <= now.month else now.year - 1
        start = _month_start(now, year, month)
        return start, _add_months(start, 1)
    if name == "year":
        start = now.replace(year=int(g["y"]), month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
        return start, start.replace(year=start.year + 1)
    if name == "today":
        start = midnight - timedelta(days=1 if g["w"].lower() == "yesterday" else 0)
        return start, start + timedelta(days=1)
    word = (g.get("n") or "1").lower()
    n = _NUM[word] if word in _NUM else int(word)
    unit = g.get("unit", "").lower()
    if name == "ago":
        if unit == "day":
            start = midnight - timedelta(days=n)
            return start, start + timedelta(days=1)
        if unit == "week":
            start = midnight - timedelta(days=7 * n + midnight.weekday())
            return start, start + timedelta(days=7)
        if unit == "month":
            start = _add_months(midnight.replace(day=1), -n)
            return start, _add_months(start, 1)
        start = midnight.replace(year=now.year - n, month=1, day=1)
        return start, start.replace(year=start.year + 1)
    if name == "last_n":
        days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit] * n
        return now - timedelta(days=days), now + timedelta(seconds=1)
    # this/last week|month|year
    last = g["which"].lower() != "this"
    if unit == "week":
        start = midnight - timedelta(days=midnight.weekday() + (7 if last else 0))
        return start, start + timedelta(days=7)
    if unit == "month":
        start = _add_months(midnight.replace(day=1), -1 if last else 0)
        return start, _add_months(start, 1)
    start = midnight.replace(year=now.year - (1 if last else 0), month=1, day=1)
    return start, start.replace(year=start.year + 1)


def read_dates(query: str, now: datetime) -> Window | None:
    """The first date expression in `query`, as a window in `now`'s time zone (`now` must
    be timezone-aware), or None when the query names no time."""
    found: list[tuple[int, int, str, re.Match[str]]] = []
    for order, (name, pattern) in enumerate(_PATTERNS):
        for m in pattern.finditer(query):
            if name == "month" and m.group("mon").lower() in _MONTH_WORDS_NEED_CONTEXT and not m.group("y"):
                # "may", "march", "jan" alone are words too: read them only after "in", "during", ...
                before = _BEFORE.search(query[: m.start()])
                if before is None or before.group("p").lower() not in ("in", "during", "since", "before", "after",
                                                                         "from", "until", "of"):
                    continue
            found.append((m.start(), order, name, m))
    if not found:
        return None
    _, _, name, m = min(found, key=lambda f: (f[0], f[1], -(f[3].end() - f[3].start())))
    span = _span(name, m, now)
    if span is None:
        return None
    start, end = span
    begin = m.start()
    prep = _BEFORE.search(query[:begin])
    word = prep.group("p").lower() if prep else ""
    since: float | None = (start - EARLY).timestamp()
    until: float | None = (end + LATE).timestamp()
    if word in ("before", "until", "till", "by"):
        since, until = None, (start + LATE).timestamp()
    elif word in ("since", "from"):
        until = None
    elif word == "after":
        since, until = (end - EARLY).timestamp(), None
    if prep:
        begin = prep.start()
    end_at = m.end() + (2 if query[m.end() : m.end() + 2] in ("'s", "’s") else 0)  # yesterday's
    phrase = query[begin:end_at]
    rest = re.sub(r"\s{2,}", " ", (query[:begin] + query[end_at:])).strip(" ,")
    rest = re.sub(r"\s+([?.!,])", r"\1", rest)
    return Window(since, until, phrase.strip(), rest)


def search_with_dates(run: Callable[[str, float | None, float | None], SearchResult], query: str,
                      now: datetime) -> SearchResult:
    """`run(query, since, until)` with the window the query names, if any, and the query
    without its date words (unless nothing else is left). When the window holds no match the
    search runs again over all dates; the result's note says how the dates were read."""
    window = read_dates(query, now)
    if window is None:
        return run(query, None, None)
    said = window.describe(now.tzinfo)
    result = run(window.rest or query, window.since, window.until)
    if not result.hits:
        result, said = run(query, None, None), f"{said}, found nothing then, so every date was searched"
    return replace(result, query=query, note="; ".join(n for n in (result.note, said) if n))
