"""The run's validity page: ask a standard instrument of the run's agents (in pages, at a tick, with an
optional retest) and read what it found: reliability per domain beside people's published figures,
persona consistency (a multitrait-multimethod table), and the distance of the agents' answers to
people's, drawn side by side. Staff only, as surveys are; every figure from voyage/instruments/validity.py."""
from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from voyage.instruments.models import ValidityReport
from voyage.instruments.persona_rating import mtmm_rows
from voyage.instruments.standard_instruments import NAMES, UnknownInstrument
from voyage.instruments.surveys import SurveyError
from voyage.instruments.validity import save_report, validity
from voyage.models import Run
from voyage.web.access import staff_required

BAR_W, BAR_H = 240, 14
FIGURES = ("alpha", "omega", "retest_icc", "persona_r")


def shares_svg(ref: dict):
    """The agents' and people's shares of each option, two bars side by side per option."""
    options = ref["options"]
    height = (2 * BAR_H + 10) * len(options) + 4
    parts = [f'<svg class="shares" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {BAR_W + 260} {height}" '
             f'role="img" aria-label="answers of {escape(ref["item"])}: agents and people">']
    y = 2
    for option, agents, people in zip(options, ref.get("agents_shares") or [0] * len(options), ref["people_shares"]):
        parts.append(f'<text x="0" y="{y + BAR_H - 3}" font-size="11">{escape(option[:40])}</text>')
        for share, colour, who in ((agents, "#1f77b4", "agents"), (people, "#d62728", "people")):
            parts.append(f'<rect x="250" y="{y}" width="{BAR_W * share:.1f}" height="{BAR_H - 2}" fill="{colour}">'
                         f'<title>{who}: {share:.3f}</title></rect><text x="{254 + BAR_W * share:.1f}" '
                         f'y="{y + BAR_H - 3}" font-size="10">{who} {share:.2f}</text>')
            y += BAR_H
        y += 10
    parts.append("</svg>")
    return mark_safe("".join(parts))


@staff_required
def run_validity(request, run_id: int):
    run = get_object_or_404(Run, pk=run_id)
    reports = list(ValidityReport.objects.filter(run=run).order_by("-id"))
    chosen = request.GET.get("report")
    shown = next((r for r in reports if str(r.pk) == chosen), reports[0] if reports else None)
    refs = [{**ref, "svg": shares_svg(ref)} for ref in (shown.report.get("references") or [])
            if ref.get("people_shares")] if shown else []
    data = shown.report if shown else None
    domains = [{"letter": d, "name": row["name"], "figures": [row[k] for k in FIGURES], "people": row["alpha"]["people"]}
               for d, row in ((data or {}).get("domains") or {}).items()]
    mtmm = mtmm_rows((data or {}).get("persona_consistency"))
    return render(request, "instruments/validity.html", {
        "run": run, "reports": reports, "shown": shown, "data": data, "refs": refs, "domains": domains,
        "mtmm": mtmm, "instruments": NAMES})


@staff_required
@require_POST
def run_validity_new(request, run_id: int):
    run = get_object_or_404(Run, pk=run_id)
    post = request.POST

    def number(key):
        value = post.get(key, "").strip()
        return int(value) if value.lstrip("-").isdigit() else None
    try:
        report = validity(run, post.get("instrument", ""), at_tick=number("tick"), retest_tick=number("retest_tick"),
                          page_size=number("page_size") or None)
    except (UnknownInstrument, SurveyError) as exc:
        messages.error(request, f"Not asked: {exc}")
        return redirect(reverse("web:run_validity", args=[run.pk]) + "#new-validity")
    saved = save_report(run, report, request.user.get_username())
    messages.success(request, f"{report['agents']} agents answered {report['title']} as of tick {report['tick']}.")
    return redirect(reverse("web:run_validity", args=[run.pk]) + f"?report={saved.pk}#validity")
