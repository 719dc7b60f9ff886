"""What the benchmark scripts share: a percentile of timings and a two-column Markdown table."""

from __future__ import annotations


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (0-100) by nearest rank on (n - 1); 0.0 when there are no values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else 0.0


def print_table(rows: list[tuple[str, str]]) -> None:
    """Rows of (measure, value) as a Markdown table on stdout."""
    print("| measure | value |\n| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")
