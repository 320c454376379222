"""A measure by day for every cell, drawn as an inline SVG on the server (no JS library, nothing
fetched). Pure: series in, markup out; every label is escaped."""
from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from voyage.studies.compare import readable

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
W, H, LEFT, RIGHT, TOP, BOTTOM = 640, 260, 90, 16, 16, 40


def line_chart(series: dict[str, list[tuple[int, float]]], title: str) -> SafeString:
    points = [p for pts in series.values() for p in pts]
    parts = [f'<svg class="study-chart" style="max-width: {W}px" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H + 20 * len(series)}" '
             f'role="img" aria-label="{escape(title)} by day">', f"<title>{escape(title)} by day</title>"]
    if not points:
        parts.append(f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">no values yet</text></svg>')
        return mark_safe("".join(parts))
    days = sorted({d for d, _ in points})
    lo, hi = min(v for _, v in points), max(v for _, v in points)
    if lo == hi:  # one value: give it room above and below
        pad = abs(lo) * 0.1 or 1
        lo, hi = lo - pad, hi + pad
    d0, d1 = days[0], days[-1]

    def x(day):
        return LEFT + (W - LEFT - RIGHT) * (0.5 if d0 == d1 else (day - d0) / (d1 - d0))

    def y(value):
        return TOP + (H - TOP - BOTTOM) * (1 - (value - lo) / (hi - lo))

    parts.append(f'<line x1="{LEFT}" y1="{H - BOTTOM}" x2="{W - RIGHT}" y2="{H - BOTTOM}" stroke="#888"/>')
    parts.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H - BOTTOM}" stroke="#888"/>')
    for value in (lo, (lo + hi) / 2, hi):
        parts.append(f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end" font-size="11">{readable(value)}</text>')
    for day in days:
        parts.append(f'<text x="{x(day):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle" font-size="11">day {day}</text>')
    for i, (label, pts) in enumerate(series.items()):
        colour = COLOURS[i % len(COLOURS)]
        if len(pts) > 1:
            path = " ".join(f"{x(d):.1f},{y(v):.1f}" for d, v in pts)
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        for d, v in pts:
            parts.append(f'<circle cx="{x(d):.1f}" cy="{y(v):.1f}" r="4" fill="{colour}">'
                         f"<title>{escape(label)}, day {d}: {readable(v)}</title></circle>")
        ly = H + 20 * i + 6
        parts.append(f'<rect x="{LEFT}" y="{ly}" width="12" height="12" fill="{colour}"/>'
                     f'<text class="legend" x="{LEFT + 18}" y="{ly + 11}" font-size="12">{escape(label)}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))
