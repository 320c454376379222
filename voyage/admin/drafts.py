"""The admin's "Draft a world": a paragraph, the sizes and the profile, refused at once when the
ask or its projected cost is wrong; otherwise a draft job goes to the worker (voyage/drafting/jobs.py)
and the browser goes to the job's page, which shows the worker's step (reloading itself) and then
the report and the draft's file to read and edit. "Check and install" queues the file as it stands
as a job of its own: checked, its offline day run again, installed only if everything passes.
Model output is shown escaped (the template's autoescape), never as markup."""
from __future__ import annotations

from django import forms
import json

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from voyage.drafting.jobs import settle_abandoned, submit, submit_check
from voyage.drafting.pipeline import AskRefused, check_ask
from voyage.drafting.profile import NoSuchProfile, author_for
from voyage.drafting.projection import over_budget, project
from voyage.models import DraftJob, ModelProfile
from world.drafting.limits import (DEFAULT_PEOPLE, DEFAULT_REPAIR_ROUNDS, DEFAULT_ROOMS, MAX_PARAGRAPH, MAX_PEOPLE,
                                   MAX_REPAIR_ROUNDS, MAX_ROOMS, DraftAsk)
from world.models import Scenario


class DraftForm(forms.Form):
    paragraph = forms.CharField(widget=forms.Textarea(attrs={"rows": 6, "cols": 90}), max_length=MAX_PARAGRAPH,
                                help_text=f"the place and its people, at most {MAX_PARAGRAPH} characters")
    people = forms.IntegerField(initial=DEFAULT_PEOPLE, min_value=2, max_value=MAX_PEOPLE)
    rooms = forms.IntegerField(initial=DEFAULT_ROOMS, min_value=3, max_value=MAX_ROOMS)
    profile = forms.ChoiceField(required=False, help_text="the model that drafts; none: the offline policy (scripted)")
    repair_rounds = forms.IntegerField(initial=DEFAULT_REPAIR_ROUNDS, min_value=0, max_value=MAX_REPAIR_ROUNDS)
    budget = forms.FloatField(initial=1.0, min_value=0, help_text="dollars at most, at the profile's prices")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = ModelProfile.objects.filter(kind=ModelProfile.OPENAI).order_by("name").values_list("name", flat=True)
        self.fields["profile"].choices = [("", "offline policy (scripted)")] + [(n, n) for n in names]

    def ask(self) -> DraftAsk:
        d = self.cleaned_data
        return DraftAsk(d["paragraph"], people=d["people"], rooms=d["rooms"], repair_rounds=d["repair_rounds"])


class InstallForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 30, "cols": 110, "spellcheck": "false"}))
    paragraph = forms.CharField(widget=forms.HiddenInput, max_length=MAX_PARAGRAPH)
    people = forms.IntegerField(widget=forms.HiddenInput, min_value=2, max_value=MAX_PEOPLE)
    rooms = forms.IntegerField(widget=forms.HiddenInput, min_value=3, max_value=MAX_ROOMS)

    def ask(self) -> DraftAsk:
        d = self.cleaned_data
        return DraftAsk(d["paragraph"], people=d["people"], rooms=d["rooms"])


REFRESH_S = 2  # how often a job's page reloads itself while the worker works


def _context(request, title: str) -> dict:
    if not request.user.has_perm("world.add_scenario"):
        raise PermissionDenied
    return {**admin.site.each_context(request), "title": title, "opts": Scenario._meta}


def draft_view(request):
    context = _context(request, "Draft a world")
    form = DraftForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            ask = form.ask()
            check_ask(ask)
            author = author_for(form.cleaned_data["profile"])
        except (AskRefused, NoSuchProfile) as exc:
            form.add_error(None, f"nothing was drafted: {exc}")
        else:
            projection = project(ask, author.max_tokens, *author.prices)
            if why := over_budget(projection, form.cleaned_data["budget"]):
                form.add_error(None, f"nothing was drafted: {why}")
            else:
                job = submit(ask, profile=form.cleaned_data["profile"], budget=form.cleaned_data["budget"],
                             projection=f"{projection}; drafting with {author.name}", user=request.user)
                return redirect("scenario_draft_job", job_id=job.pk)
    context.update(form=form, jobs=DraftJob.objects.filter(kind=DraftJob.DRAFT)[:10])
    return TemplateResponse(request, "admin/world/scenario/draft.html", context)


def draft_job_view(request, job_id: int):
    context = _context(request, f"Draft job {job_id}")
    settle_abandoned()
    job = get_object_or_404(DraftJob, pk=job_id)
    install_form = None
    if request.method == "POST" and "install" in request.POST:
        install_form = InstallForm(request.POST)
        if install_form.is_valid():
            check = submit_check(install_form.cleaned_data["text"], install_form.ask(), user=request.user)
            return redirect("scenario_draft_job", job_id=check.pk)
    elif job.state == DraftJob.DONE and job.text and not job.installed_slug:
        install_form = InstallForm(initial={"text": job.text, "paragraph": job.paragraph, "people": job.people,
                                            "rooms": job.rooms})
    context.update(job=job, install_form=install_form, refresh_s=REFRESH_S,
                   json_line=json.dumps(job.summary, ensure_ascii=False) if job.summary is not None else "")
    return TemplateResponse(request, "admin/world/scenario/draft_job.html", context)


@admin.register(DraftJob)
class DraftJobAdmin(admin.ModelAdmin):
    """The draft jobs, to look at (each one's own page shows its report and file); made only by
    "Draft a world" and by the worker."""
    list_display = ("id", "kind", "state", "people", "rooms", "profile", "created_at", "installed_slug", "page")
    list_filter = ("state", "kind")
    readonly_fields = [f.name for f in DraftJob._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="page")
    def page(self, job):
        return format_html('<a href="{}">the draft\'s page</a>', reverse("scenario_draft_job", args=[job.pk]))
