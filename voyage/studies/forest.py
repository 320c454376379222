"""The study report's forest plot: each measure's difference from the baseline with its 95 % interval,
one row per measure and arm, grouped by family (ladder, speech, trust, networks, memory, surveys,
health, validity), against a line at zero, so the eye finds what moved. Measures are in different
units, so each row has its own scale, symmetric about zero, and prints its numbers: the points and
intervals are the table's, as they are. A row whose adjusted p is under 0.05 is drawn dark. Pure:
comparisons in, an inline SVG out; every label escaped."""
from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from voyage.studies.adjust import FAMILIES, family_of
from voyage.studies.compare import readable

W, LABEL, PLOT, ROW, HEAD = 760, 300, 280, 18, 22
SIGNIFICANT = 0.05


def forest_rows(comparisons) -> list[dict]:
    """The rows drawn, in family order then the table's: every comparison with a difference and interval."""
    rows = [{"family": family_of(c.measure), "measure": c.measure, "arm": c.arm, "diff": c.diff, "low": c.ci_low,
             "high": c.ci_high, "p_adjusted": c.p_adjusted, "verdict": getattr(c, "verdict", None)} for c in comparisons
            if c.diff is not None and c.ci_low is not None and c.ci_high is not None]
    order = {f: i for i, f in enumerate((*FAMILIES, "other"))}
    return sorted(rows, key=lambda r: order[r["family"]])  # stable: the table's order within a family


def forest_svg(rows: list[dict], title: str = "differences from the baseline") -> SafeString:
    families = list(dict.fromkeys(r["family"] for r in rows))
    height = HEAD + ROW * (len(rows) + len(families)) + 10
    parts = [f'<svg class="forest" style="max-width: {W}px" xmlns="http://www.w3.org/2000/svg" '
             f'viewBox="0 0 {W} {height}" role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>']
    zero = LABEL + PLOT / 2
    parts.append(f'<text x="{zero}" y="14" text-anchor="middle" font-size="11">0 (each row its own scale)</text>')
    y = HEAD
    for family in families:
        parts.append(f'<text class="family" x="4" y="{y + 13}" font-size="12" font-weight="bold">{escape(family)}</text>')
        y += ROW
        for r in (r for r in rows if r["family"] == family):
            span = max(abs(r["low"]), abs(r["high"]), abs(r["diff"])) or 1.0

            def x(v, span=span):
                return zero + (PLOT / 2 - 8) * v / span
            strong = r["p_adjusted"] is not None and r["p_adjusted"] < SIGNIFICANT
            colour = "#111" if strong else "#999"
            mid = y + ROW / 2
            adjusted = "" if r["p_adjusted"] is None else f", p adj {r['p_adjusted']:.3g}"
            parts.append(f'<g class="forest-row" data-measure="{escape(r["measure"])}" data-arm="{escape(r["arm"])}" '
                         f'data-diff="{r["diff"]!r}" data-low="{r["low"]!r}" data-high="{r["high"]!r}">'
                         f'<text x="12" y="{mid + 4}" font-size="11">{escape(r["measure"])} · {escape(r["arm"])}'
                         f'{" · judge " + escape(r["verdict"]) if r.get("verdict") else ""}</text>'
                         f'<line x1="{x(r["low"]):.1f}" y1="{mid}" x2="{x(r["high"]):.1f}" y2="{mid}" '
                         f'stroke="{colour}" stroke-width="2"/>'
                         f'<circle cx="{x(r["diff"]):.1f}" cy="{mid}" r="3.5" fill="{colour}"/>'
                         f'<text x="{LABEL + PLOT + 8}" y="{mid + 4}" font-size="11">{readable(r["diff"])} '
                         f'[{readable(r["low"])}, {readable(r["high"])}]{adjusted}</text></g>')
            y += ROW
    parts.append(f'<line x1="{zero}" y1="{HEAD - 4}" x2="{zero}" y2="{y}" stroke="#c33" stroke-dasharray="3 3"/>')
    parts.append("</svg>")
    return mark_safe("".join(parts))
