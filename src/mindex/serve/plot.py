"""`mindex eval --plot`: metrics per run as grouped bars and latencies as box plots, in plain
SVG (no plotting library), standalone or inside a small HTML report."""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np

from mindex.errors import ConfigError
from mindex.evaluate import METRICS, RunReport

COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c")
WIDTH = 760
FONT = 'font-family="sans-serif" font-size="12"'


def check_plot_path(path: Path) -> None:
    """Refuse, before any work, a file type we cannot write."""
    if path.suffix.lower() not in (".html", ".htm", ".svg"):
        raise ConfigError(f"--plot writes .html or .svg files, not {path.suffix or 'files without a suffix'}; "
                          "open the HTML in a browser or convert the SVG with any image tool")


def write_plot(path: Path, reports: list[RunReport]) -> None:
    """Write the chart: an SVG file, or an HTML page with the chart and a table of the numbers."""
    svg = chart(reports)
    if path.suffix.lower() == ".svg":
        path.write_text(svg, encoding="utf-8")
        return
    rows = "".join(
        "<tr><td>" + html.escape(r.label) + "</td>"
        + "".join(f"<td>{v:.3f}</td>" for v in r.metrics().values()) + "</tr>" for r in reports)
    head = "".join(f"<th>{html.escape(name)}</th>" for name in (*METRICS, "p50 ms", "p95 ms"))
    path.write_text(
        "<!doctype html><meta charset=utf-8><title>mindex eval</title>"
        "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:right}</style>"
        f"<h1>mindex eval: {len(reports[0].scores)} queries</h1>{svg}"
        f"<table><tr><th>run</th>{head}</tr>{rows}</table>", encoding="utf-8")


def chart(reports: list[RunReport]) -> str:
    """Both panels stacked in one SVG document."""
    bars, bars_height = _metric_bars(reports)
    boxes, boxes_height = _latency_boxes(reports, top=bars_height)
    height = bars_height + boxes_height
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" {FONT}><rect width="100%" height="100%" fill="white"/>'
            f"{bars}{boxes}</svg>")


def _legend(reports: list[RunReport], y: int) -> str:
    parts = []
    for n, report in enumerate(reports):
        x = 60 + n * 130
        parts.append(f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{COLOURS[n % len(COLOURS)]}"/>'
                     f'<text x="{x + 16}" y="{y}">{html.escape(report.label)}</text>')
    return "".join(parts)


def _metric_bars(reports: list[RunReport]) -> tuple[str, int]:
    """Grouped bars: one group per metric, one bar per run, 0 to 1."""
    top, plot_h, left = 40, 200, 50
    group_w = (WIDTH - left - 20) / len(METRICS)
    bar_w = group_w * 0.8 / len(reports)
    parts = [f'<text x="{left}" y="20" font-size="14" font-weight="bold">Retrieval quality</text>']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        y = top + plot_h * (1 - tick)
        parts.append(f'<line x1="{left}" x2="{WIDTH - 20}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
                     f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:g}</text>')
    metrics = [report.metrics() for report in reports]
    for g, name in enumerate(METRICS):
        x0 = left + g * group_w + group_w * 0.1
        for n, report in enumerate(reports):
            value = metrics[n][name]
            value = 0.0 if math.isnan(value) else value
            h = plot_h * value
            parts.append(f'<rect x="{x0 + n * bar_w:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w * 0.95:.1f}" '
                         f'height="{h:.1f}" fill="{COLOURS[n % len(COLOURS)]}"><title>{html.escape(report.label)} '
                         f'{name} {value:.3f}</title></rect>')
        parts.append(f'<text x="{x0 + group_w * 0.4:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{name}</text>')
    parts.append(_legend(reports, top + plot_h + 40))
    return "".join(parts), top + plot_h + 60


def _latency_boxes(reports: list[RunReport], top: int) -> tuple[str, int]:
    """One horizontal box per run: box p25-p75, line at p50, whiskers p5-p95, on a log axis."""
    left, right, row_h = 120, WIDTH - 20, 34
    measured = [[t for t in r.latencies if not math.isnan(t) and t > 0] for r in reports]
    everything = [t for times in measured for t in times]
    parts = [f'<text x="50" y="{top + 20}" font-size="14" font-weight="bold">Latency per query (ms, log scale)</text>']
    if not everything:
        parts.append(f'<text x="50" y="{top + 45}">No latencies: the runs were read from files without took_ms.</text>')
        return "".join(parts), 60
    low, high = math.floor(math.log10(min(everything))), math.ceil(math.log10(max(everything)))
    high = high if high > low else low + 1  # whole decades, so the ends carry ticks

    def x(ms: float) -> float:
        return left + (right - left) * (math.log10(ms) - low) / (high - low)

    for n, (report, times) in enumerate(zip(reports, measured, strict=True)):
        y = top + 40 + n * row_h
        colour = COLOURS[n % len(COLOURS)]
        parts.append(f'<text x="{left - 8}" y="{y + 14}" text-anchor="end">{html.escape(report.label)}</text>')
        if not times:
            continue
        p5, p25, p50, p75, p95 = (float(v) for v in np.percentile(times, [5, 25, 50, 75, 95]))
        parts.append(f'<line x1="{x(p5):.1f}" x2="{x(p95):.1f}" y1="{y + 10}" y2="{y + 10}" stroke="{colour}"/>'
                     f'<rect x="{x(p25):.1f}" y="{y}" width="{max(x(p75) - x(p25), 1):.1f}" height="20" '
                     f'fill="{colour}" fill-opacity="0.5" stroke="{colour}"/>'
                     f'<line x1="{x(p50):.1f}" x2="{x(p50):.1f}" y1="{y}" y2="{y + 20}" stroke="black" stroke-width="2">'
                     f'<title>p50 {p50:.1f} ms, p95 {p95:.1f} ms</title></line>')
    axis_y = top + 40 + len(reports) * row_h
    ticks = [m * 10.0 ** e for e in range(low, high + 1) for m in (1, 2, 5) if m * 10.0 ** e <= 10.0 ** high]
    for ms in ticks:
        parts.append(f'<line x1="{x(ms):.1f}" x2="{x(ms):.1f}" y1="{top + 36}" y2="{axis_y - 10}" stroke="#eee"/>'
                     f'<text x="{x(ms):.1f}" y="{axis_y + 4}" text-anchor="middle">{ms:g}</text>')
    return "".join(parts), axis_y - top + 20
