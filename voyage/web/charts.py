"""Pictures of a run, drawn on the server as SVG (no script, nothing fetched): rungs over time as a
stacked chart, the trust matrix at a chosen tick, room occupancy over time, and the speech graph of a
chosen day (`voyage.web.speech_picture`). The series come
from `voyage.web.series` (pure); this module loads their input from the database and draws them.
Every piece of text in the SVG (names of rooms, people, rungs, labels) is escaped."""
from __future__ import annotations

from django.shortcuts import get_object_or_404, render
from django.utils.html import escape
from django.utils.safestring import mark_safe

from memories.models import TrustHistory
from world.time import sim_clock
from voyage.models import Event, Run
from voyage.web.access import staff_required
from voyage.web.params import int_param
from voyage.web.speech_picture import speech_picture
from voyage.web.series import Ev, RungStep, TrustRow, occupancy, rung_steps, sample_ticks, trust_at
from world.models import AgentState

RUNG_COLOURS = ("#c9c2b8", "#7aa6c2", "#2f5d8a", "#16324f", "#0b1a2a")
DEAD_COLOUR = "#8b1e1e"
OCCUPANCY_COLUMNS = 120


def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    return mark_safe(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
                     f'height="{height}" role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
                     + "".join(body) + "</svg>")


# --- rungs over time ---------------------------------------------------------------------------
def rungs_svg(steps: list[RungStep], end_tick: int, rung_names: list[str], width=760, height=260) -> str:
    """Stacked step areas: rung 0 at the bottom, then each higher rung, the dead on top."""
    left, right, top, bottom = 40, 150, 10, 30
    plot_w, plot_h = width - left - right, height - top - bottom
    total = sum(steps[0].counts) + steps[0].dead if steps else 0
    end = max(end_tick, steps[-1].tick if steps else 0, 1)
    x = lambda tick: left + plot_w * tick / end
    y = lambda n: top + plot_h - (plot_h * n / total if total else 0)
    bands = [[s.counts[i] for s in steps] for i in range(len(rung_names))] + [[s.dead for s in steps]]
    colours = [RUNG_COLOURS[i % len(RUNG_COLOURS)] for i in range(len(rung_names))] + [DEAD_COLOUR]
    names = [f"rung {i}: {n}" for i, n in enumerate(rung_names)] + ["dead"]
    body, base = [], [0] * len(steps)
    for band, colour, name in zip(bands, colours, names):
        upper = [b + v for b, v in zip(base, band)]
        edges = [s.tick for s in steps[1:]] + [end]
        top_line = [f"{x(s.tick):.1f},{y(u):.1f} {x(e):.1f},{y(u):.1f}" for s, e, u in zip(steps, edges, upper)]
        bottom_line = [f"{x(e):.1f},{y(b):.1f} {x(s.tick):.1f},{y(b):.1f}" for s, e, b in zip(steps, edges, base)]
        body.append(f'<polygon class="band" fill="{colour}" points="{" ".join(top_line + bottom_line[::-1])}">'
                    f"<title>{escape(name)}</title></polygon>")
        base = upper
    for i, (colour, name) in enumerate(zip(colours, names)):
        ly = top + 16 * i
        body.append(f'<rect x="{width - right + 10}" y="{ly}" width="12" height="12" fill="{colour}"/>'
                    f'<text x="{width - right + 28}" y="{ly + 11}" font-size="12">{escape(name)}</text>')
    body += _axes(left, top, plot_w, plot_h, end, total)
    return _svg(width, height, "Agents on each rung over time", body)


def _axes(left, top, plot_w, plot_h, end_tick, total) -> list[str]:
    out = [f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#444"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#444"/>',
           f'<text x="{left - 6}" y="{top + 10}" font-size="11" text-anchor="end">{total}</text>',
           f'<text x="{left - 6}" y="{top + plot_h}" font-size="11" text-anchor="end">0</text>']
    for tick in sample_ticks(end_tick, 5):
        tx = left + plot_w * tick / max(end_tick, 1)
        out.append(f'<text x="{tx:.1f}" y="{top + plot_h + 16}" font-size="11" text-anchor="middle">'
                   f"{escape(sim_clock(tick))}</text>")
    return out


# --- trust at a tick ---------------------------------------------------------------------------
def trust_svg(people: list[tuple[str, str]], state: dict[tuple[str, str], TrustRow], tick: int) -> str:
    """A matrix: row = who holds the opinion, column = about whom; green trusts, red suspects."""
    cell, label_w, label_h = 14, 170, 130
    n = len(people)
    width, height = label_w + n * cell + 10, label_h + n * cell + 10
    body = []
    for j, (_, name) in enumerate(people):
        cx = label_w + j * cell + cell / 2
        body.append(f'<text class="col" transform="translate({cx:.1f},{label_h - 4}) rotate(-60)" font-size="11">'
                    f"{escape(name)}</text>")
    for i, (key, name) in enumerate(people):
        cy = label_h + i * cell
        body.append(f'<text class="row" x="{label_w - 6}" y="{cy + cell - 3}" font-size="11" text-anchor="end">'
                    f"{escape(name)}</text>")
        for j, (other, other_name) in enumerate(people):
            row = state.get((key, other))
            if row is None:
                continue
            body.append(f'<rect class="cell" x="{label_w + j * cell}" y="{cy}" width="{cell - 1}" height="{cell - 1}" '
                        f'fill="{_trust_colour(row.score)}" data-score="{row.score:.2f}"><title>{escape(name)} → '
                        f"{escape(other_name)}: {escape(row.label)} ({row.score:+.2f}) since tick {row.tick}</title></rect>")
    return _svg(width, height, f"Who trusts and who suspects whom at tick {tick}", body)


def _trust_colour(score: float) -> str:
    """Diverging: red for suspicion, green for trust, pale for indifference."""
    s = max(-1.0, min(1.0, score))
    strength = int(220 - 160 * abs(s))
    return f"rgb({strength},{220},{strength})" if s >= 0 else f"rgb({220},{strength},{strength})"


# --- room occupancy ----------------------------------------------------------------------------
def occupancy_svg(rooms: list[tuple[str, str]], counts: dict[str, list[int]], ticks: list[int]) -> str:
    """A heat map: one row per room, one column per sampled tick, darker for more people."""
    cell_w, cell_h, label_w, top = 5, 12, 190, 6
    peak = max((max(c) for c in counts.values() if c), default=0) or 1
    width, height = label_w + cell_w * len(ticks) + 10, top + cell_h * len(rooms) + 24
    body = []
    at = [escape(sim_clock(t)) for t in ticks]
    for i, (key, name) in enumerate(rooms):
        y, name = top + i * cell_h, escape(name)
        body.append(f'<text x="{label_w - 6}" y="{y + cell_h - 2}" font-size="10" text-anchor="end">{name}</text>')
        for j, n in enumerate(counts.get(key, [])):
            if n:
                shade = int(235 - 200 * n / peak)
                body.append(f'<rect x="{label_w + j * cell_w}" y="{y}" width="{cell_w}" height="{cell_h - 1}" '
                            f'fill="rgb({shade},{shade},{min(255, shade + 30)})"><title>{name}: {n} at {at[j]}</title></rect>')
    for tick in sample_ticks(ticks[-1] if ticks else 0, 5):
        j = min(range(len(ticks)), key=lambda k: abs(ticks[k] - tick))
        body.append(f'<text x="{label_w + j * cell_w}" y="{height - 6}" font-size="10" text-anchor="middle">'
                    f"{escape(sim_clock(tick))}</text>")
    return _svg(width, height, "Room occupancy over time", body)


# --- loading -----------------------------------------------------------------------------------
def _events(run: Run, kinds: tuple[str, ...]) -> list[Ev]:
    """Only the data keys the series read, extracted by the database (decoding every event's JSON
    in Python cost more than the rest of the page)."""
    rows = (Event.objects.filter(run=run, kind__in=kinds).order_by("seq")
            .values_list("tick", "kind", "actor__persona__key", "data__to", "data__rung"))
    return [Ev(tick, kind, actor, {"to": to, "rung": rung}) for tick, kind, actor, to, rung in rows]


def pictures(run: Run, tick: int) -> dict:
    agents = list(AgentState.objects.filter(run=run).order_by("persona__display_name")
                  .values_list("persona__key", "persona__display_name", "persona__home_node__key"))
    rooms = list(run.scenario.rooms.order_by("id").values_list("key", "name"))
    rung_names = list(run.scenario.rungs.order_by("level").values_list("name", flat=True))
    events = _events(run, ("rung", "death", "move"))
    steps = rung_steps([a for a, _, _ in agents], len(rung_names), [e for e in events if e.kind != "move"])
    ticks = sample_ticks(run.tick, OCCUPANCY_COLUMNS)
    counts = occupancy({a: home for a, _, home in agents}, [e for e in events if e.kind != "rung"], ticks)
    history = (TrustHistory.objects.filter(entry__run=run, tick__lte=tick).order_by("tick", "id")
               .values_list("entry__agent__persona__key", "entry__other__persona__key", "tick", "score", "label"))
    state = trust_at((TrustRow(*h) for h in history), tick)
    return {
        "rungs_svg": rungs_svg(steps, run.tick, rung_names),
        "trust_svg": trust_svg([(a, n) for a, n, _ in agents], state, tick),
        "occupancy_svg": occupancy_svg(rooms, counts, ticks),
        "trusting": sum(1 for r in state.values() if r.score > 0),
        "suspicious": sum(1 for r in state.values() if r.score < 0),
    }


@staff_required
def run_charts(request, run_id: int):
    run = get_object_or_404(Run.objects.select_related("scenario"), pk=run_id)
    tick = int_param(request, "tick")
    tick = run.tick if tick is None else max(0, min(tick, run.tick))
    day = int_param(request, "day")
    return render(request, "web/charts.html", {"run": run, "tick": tick, "at": sim_clock(tick),
                                               "now": sim_clock(run.tick), **pictures(run, tick),
                                               **speech_picture(run, day if day is not None else 10 ** 6, RUNG_COLOURS)})
