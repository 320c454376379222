"""The speech graph of one day, drawn on the server as SVG for the pictures page: who HEARD whom
(voyage/studies/networks.py), each person a dot coloured by the rung they had reached by the end of
that day, the communities of a seeded Louvain partition drawn as separate rings (those nobody heard
and who heard nobody together in one), a line per pair thicker for more utterances. No script, nothing
fetched; every name is escaped."""
from __future__ import annotations

import math

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from voyage.models import Event
from voyage.studies.measures import speech_graph_of
from voyage.studies.networks import communities, undirected
from voyage.studies.tables import Tables

SIZE, MARGIN = 640, 24


def rungs_by_end_of(run, info, day: int) -> dict[str, int]:
    """persona key -> the highest rung reached by the end of the day (0 if none)."""
    out: dict[str, int] = {}
    for key, tick, rung in (Event.objects.filter(run=run, kind="rung").order_by()
                            .values_list("actor__persona__key", "tick", "data__rung")):
        if info.day_of(tick) <= day:
            out[key] = max(out.get(key, 0), int(rung or 0))
    return out


def groups(g) -> tuple[list[list[str]], list[str]]:
    """(the communities with ties, largest first, each sorted; everyone with no tie)."""
    parts = communities(undirected(g))
    return ([sorted(map(str, c)) for c in parts if len(c) > 1],
            sorted(str(n) for c in parts if len(c) == 1 for n in c))


def layout(parts: list[list[str]]) -> dict[str, tuple[float, float]]:
    """Each group a ring of its own around the centre (one group: the middle), its size following
    the square root of its members."""
    n = sum(len(p) for p in parts) or 1
    centre, spread = SIZE / 2, (SIZE / 2 - MARGIN) * 0.55
    out = {}
    for i, members in enumerate(parts):
        angle = 2 * math.pi * i / len(parts)
        cx = centre + (spread * math.cos(angle) if len(parts) > 1 else 0)
        cy = centre + (spread * math.sin(angle) if len(parts) > 1 else 0)
        radius = 6 + (SIZE / 2 - MARGIN) * (0.4 if len(parts) > 1 else 0.9) * math.sqrt(len(members) / n)
        for j, key in enumerate(members):
            a = 2 * math.pi * j / len(members)
            out[key] = (cx + radius * math.cos(a), cy + radius * math.sin(a)) if len(members) > 1 else (cx, cy)
    return out


def speech_svg(g, names: dict[str, str], rungs: dict[str, int], rung_names: list[str], day: int,
               colours: tuple[str, ...], grouped: tuple[list, list] | None = None) -> SafeString:
    """`grouped`: `groups(g)` when the caller has it already (Louvain is the costly part)."""
    tied, alone = grouped or groups(g)
    parts = tied + ([alone] if alone else [])
    where = layout(parts)
    title = f"Who heard whom on day {day}"
    body = []
    heaviest = max((w for _, _, w in g.edges(data="weight")), default=1)
    for a, b, w in sorted(g.edges(data="weight")):
        (x1, y1), (x2, y2) = where[str(a)], where[str(b)]
        body.append(f'<line class="tie" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#555" '
                    f'stroke-opacity="0.35" stroke-width="{0.5 + 3 * w / heaviest:.2f}"><title>{escape(names.get(a, a))}'
                    f" → {escape(names.get(b, b))}: {w} utterance(s) heard</title></line>")
    for i, members in enumerate(parts):
        label = f"community {i + 1}" if i < len(tied) else "no ties"
        for key in members:
            x, y = where[key]
            rung = rungs.get(key, 0)
            body.append(f'<circle class="node" data-agent="{escape(key)}" data-group="{i + 1}" cx="{x:.1f}" cy="{y:.1f}" '
                        f'r="5" fill="{colours[rung % len(colours)]}" stroke="#222" stroke-width="0.5">'
                        f"<title>{escape(names.get(key, key))}, rung {rung} "
                        f"({escape(rung_names[rung] if rung < len(rung_names) else '')}), {label}</title></circle>")
    for level, name in enumerate(rung_names):
        y = SIZE + 6 + 16 * level
        body.append(f'<rect x="{MARGIN}" y="{y}" width="12" height="12" fill="{colours[level % len(colours)]}"/>'
                    f'<text class="legend" x="{MARGIN + 18}" y="{y + 11}" font-size="12">rung {level}: {escape(name)}</text>')
    height = SIZE + 12 + 16 * len(rung_names)
    return mark_safe(f'<svg class="speech-graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {height}" '
                     f'width="{SIZE}" height="{height}" role="img" aria-label="{escape(title)}">'
                     f"<title>{escape(title)}</title>" + "".join(body) + "</svg>")


def speech_picture(run, day: int, colours: tuple[str, ...]) -> dict:
    """The page's context: the days to choose from, the chosen day's SVG, and its size."""
    t = Tables([run.pk])
    info = t.runs[run.pk]
    day = max(1, min(day, info.days))
    g = speech_graph_of(t, info, day)
    names = dict(run.agents.values_list("persona__key", "persona__display_name"))
    rung_names = list(run.scenario.rungs.order_by("level").values_list("name", flat=True))
    grouped = groups(g)
    return {"speech_day": day, "speech_days": list(range(1, info.days + 1)),
            "speech_svg": speech_svg(g, names, rungs_by_end_of(run, info, day), rung_names, day, colours, grouped),
            "speech_edges": g.number_of_edges(), "speech_groups": len(grouped[0])}
