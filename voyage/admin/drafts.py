"""The admin's "Draft a world": a paragraph, the sizes and the profile; then the draft's report and
its file to read and edit; then "Check and install", which checks the file as it stands, runs its
offline day again and installs it only if everything passes. Model output is shown escaped (the
template's autoescape), never as markup."""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse

from voyage.drafting.pipeline import AskRefused, check_ask, draft_world, recheck
from voyage.drafting.profile import NoSuchProfile, author_for
from voyage.drafting.projection import over_budget, project
from voyage.models import ModelProfile
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


def draft_view(request):
    if not request.user.has_perm("world.add_scenario"):
        raise PermissionDenied
    context = {**admin.site.each_context(request), "title": "Draft a world", "opts": Scenario._meta}
    if request.method == "POST" and "install" in request.POST:
        return _install(request, context)
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
                report = draft_world(ask, author.gateway(), drafted_by=author.name, budget=form.cleaned_data["budget"])
                context.update(projection=str(projection), report=report, install_form=_install_form(report, ask))
    context["form"] = form
    return TemplateResponse(request, "admin/world/scenario/draft.html", context)


def _install_form(report, ask: DraftAsk):
    if not report.text:
        return None
    return InstallForm(initial={"text": report.text, "paragraph": ask.paragraph, "people": ask.people,
                                "rooms": ask.rooms})


def _install(request, context):
    form = InstallForm(request.POST)
    if not form.is_valid():
        context.update(form=DraftForm(), install_form=form)
        return TemplateResponse(request, "admin/world/scenario/draft.html", context)
    report = recheck(form.cleaned_data["text"], form.ask(), install=True)
    if report.installed:
        messages.success(request, f"Scenario {report.slug!r} installed: it passed the checks, its offline day and "
                                  f"the audits.")
        return redirect(reverse("admin:world_scenario_changelist"))
    context.update(form=DraftForm(), report=report, install_form=form)
    return TemplateResponse(request, "admin/world/scenario/draft.html", context)
