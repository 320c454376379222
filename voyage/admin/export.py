"""The run admin's export and fork actions (added to RunAdmin at the end of voyage/admin/tables.py).

Export downloads the run's fixture (voyage/export/fixture.py), written to a temporary file first so
memory stays bounded; fork makes a fork of one run at the tick given beside the action (and the
seed, if given), replaying the ticks in the request: it needs no model and is quick."""
from __future__ import annotations

import tempfile

from django import forms
from django.contrib import admin, messages
from django.http import FileResponse
from django.urls import reverse
from django.utils.html import format_html

from voyage.admin.run_forms import RunActionForm
from voyage.export.fixture import SUFFIX, ExportError, write_gzip
from voyage.runs.fork import ForkError, fork


class ForkActionForm(RunActionForm):
    at_tick = forms.IntegerField(required=False, min_value=1, help_text="fork only: the ticks replayed")


def _one(modeladmin, request, queryset, verb: str):
    if queryset.count() != 1:
        modeladmin.message_user(request, f"{verb.capitalize()} one run at a time.", messages.WARNING)
        return None
    return queryset.select_related("scenario", "profile").get()


@admin.action(description="Export the selected run as a fixture (loaddata)")
def export_run_action(modeladmin, request, queryset):
    run = _one(modeladmin, request, queryset, "export")
    if run is None:
        return None
    spool = tempfile.TemporaryFile()  # FileResponse closes it, and closing deletes it
    try:
        write_gzip(run, spool)
    except ExportError as exc:
        spool.close()
        modeladmin.message_user(request, f"Export refused: {exc}", messages.WARNING)
        return None
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, filename=f"run-{run.pk}{SUFFIX}",
                        content_type="application/gzip")


@admin.action(description="Fork the selected run at the tick given (replays up to it, then waits to go on live)")
def fork_run_action(modeladmin, request, queryset):
    run = _one(modeladmin, request, queryset, "fork")
    if run is None:
        return
    raw_tick, raw_seed = request.POST.get("at_tick", "").strip(), request.POST.get("seed", "").strip()
    if not raw_tick.isdigit():
        modeladmin.message_user(request, f"Fork refused: give the tick to fork at (1 to {run.tick}) beside the action",
                                messages.WARNING)
        return
    if raw_seed and not raw_seed.lstrip("-").isdigit():
        modeladmin.message_user(request, f"Fork refused: the seed {raw_seed!r} is not a whole number", messages.WARNING)
        return
    try:
        made = fork(run, int(raw_tick), seed=int(raw_seed) if raw_seed else None)
    except ForkError as exc:
        modeladmin.message_user(request, f"Fork of run {run.pk} refused: {exc}", messages.WARNING)
        return
    link = format_html('<a href="{}">run {}</a>', reverse("admin:voyage_run_change", args=[made.pk]), made.pk)
    modeladmin.message_user(request, format_html("Fork of run {} at tick {}: {} (seed {}), paused there; start it "
                                                 "to go on live.", run.pk, made.fork_tick, link, made.seed),
                            messages.SUCCESS)
