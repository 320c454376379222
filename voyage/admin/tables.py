"""Runs (configured through voyage.runs.config, driven by voyage.runs.control), model profiles, and the
read-only event log and model calls."""
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed
from django.db import models
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.utils.html import format_html

from memories.admin_filters import inspection_filters
from voyage.admin.export import ForkActionForm, export_run_action, fork_run_action
from voyage.admin.run_forms import RunActionForm, RunChangeForm, RunConfigForm
from voyage.calls.usage import usage_totals
from voyage.gateway.prompts import prompt_text
from voyage.gateway.providers import provider
from voyage.models import Event, LLMCall, ModelProfile, Run
from voyage.runs import control
from voyage.runs.config import (
    GROWABLE, PARAMETERS, clone_run, configure_run, has_started, replay_run, update_run_params
)
from world.admin_readonly import ReadOnlyAdmin


class ModelProfileForm(forms.ModelForm):
    """A provider chosen (or changed) fills in each of its fields the same save did not change, before
    the profile is validated (so its base URL counts)."""

    class Meta:
        model = ModelProfile
        fields = ()  # the admin's fieldsets name them (and its formfield_overrides shape them)

    def clean(self):
        data = super().clean()
        if "provider" in self.changed_data and data.get("provider"):
            for name, value in provider(data["provider"]).profile_fields().items():
                if name in self.fields and name not in self.changed_data and (value or name != "base_url"):
                    data[name] = value
        return data


@admin.register(ModelProfile)
class ModelProfileAdmin(admin.ModelAdmin):
    """Model profiles: the key itself is never stored or shown, only whether its variable is set here."""

    list_display = ("name", "kind", "provider", "model", "base_url", "api_key_env", "key_is_set", "structured_output",
                    "schema_dialect", "concurrency", "price_in_per_m", "price_out_per_m")
    list_filter = ("kind", "provider", "structured_output")
    search_fields = ("name", "model", "base_url")
    readonly_fields = ("key_is_set", "test_endpoint")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    fieldsets = [
        (None, {"fields": ("name", "kind", "provider")}),
        ("Endpoint", {"fields": ("base_url", "model", "api_key_env", "key_is_set", "structured_output",
                                 "schema_dialect", "extra_body", "cached_tokens_at", "test_endpoint"),
                      "description": "Choosing a provider fills in, when the profile is saved, each field below "
                                     "that was not changed in the same form: its base URL, form, dialect, reasoning "
                                     "switches, request body and cached-token field. Edit any of them after."}),
        ("Reasoning", {"fields": ("reasoning", "reasoning_on", "reasoning_off"),
                       "description": "Per call purpose (action, reflection, trust, compaction, era, bulletin, "
                                      "dream, diary, importance): true/false. The chosen body is merged into "
                                      "the request through extra_body."}),
        ("Sampling", {"fields": ("temperature", "max_tokens")}),
        ("Reliability", {"fields": ("timeout_s", "retries", "concurrency")}),
        ("Instruments", {"fields": ("instrument_page_size",),
                         "description": "A standard instrument is asked in pages of this many items, each page one "
                                        "call under its own schema: a small model cannot keep 120 answers in one."}),
        ("Prices", {"fields": ("price_in_per_m", "price_out_per_m")}),
    ]

    form = ModelProfileForm

    @admin.display(boolean=True, description="key set here")
    def key_is_set(self, obj):
        import os

        if obj is None or not obj.api_key_env:
            return None
        return bool(os.environ.get(obj.api_key_env))

    @admin.display(description="structured output forms")
    def test_endpoint(self, obj):
        """A button in the change form, posting (with the form's CSRF token) to test_endpoint_view."""
        if obj is None or obj.pk is None or obj.kind != ModelProfile.OPENAI:
            return "save an OpenAI-compatible profile to test its endpoint"
        return format_html('<button type="submit" class="button" name="_test_endpoint" formaction="{}" '
                           'formnovalidate>Test this endpoint</button> <span class="help">one request in each form '
                           '(as saved), the schema forms with an action schema in the profile\'s dialect: which '
                           'it takes, enforces, ignores or refuses</span>',
                           reverse("admin:voyage_modelprofile_test", args=[obj.pk]))

    def get_urls(self):
        own = [path("<int:pk>/test-endpoint/", self.admin_site.admin_view(self.test_endpoint_view),
                    name="voyage_modelprofile_test")]
        return own + super().get_urls()

    def test_endpoint_view(self, request, pk):
        """One small request in each form on the saved profile's endpoint; one message per form."""
        # lazy: the OpenAI SDK loads only when staff test an endpoint, not with every admin page
        from voyage.gateway.openai_client import GatewayConfig
        from voyage.gateway.probe import ENFORCES, IGNORES, REFUSES, TAKES, probe_forms

        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        profile = get_object_or_404(ModelProfile, pk=pk, kind=ModelProfile.OPENAI)
        levels = {TAKES: messages.SUCCESS, ENFORCES: messages.SUCCESS, IGNORES: messages.WARNING,
                  REFUSES: messages.WARNING}
        for verdict in probe_forms(GatewayConfig.from_profile(profile)):
            level = levels.get(verdict.outcome, messages.ERROR)
            self.message_user(request, f"Endpoint of {profile.name}: {verdict}", level)
        return redirect("admin:voyage_modelprofile_change", profile.pk)


DONE = {"start": "Started", "pause": "Paused", "resume": "Resumed", "stop": "Stopped"}


def _control(verb: str, description: str):
    """An admin action calling voyage.runs.control.<verb> on each selected run, reporting each run done and
    each refusal with its reason."""

    @admin.action(description=description)
    def action(modeladmin, request, queryset):
        done = []
        for run in queryset.order_by("pk"):
            try:
                getattr(control, verb)(run.pk)
                done.append(str(run.pk))
            except control.ControlError as exc:
                modeladmin.message_user(request, f"{verb.capitalize()} refused: {exc}", messages.WARNING)
        if done:
            modeladmin.message_user(request, f"{DONE[verb]}: run {', '.join(done)}.", messages.SUCCESS)

    action.__name__ = f"{verb}_runs"
    return action


def _report_new(modeladmin, request, what: str, source: Run, make) -> None:
    from django.core.exceptions import ValidationError

    try:
        new = make()
    except ValidationError as exc:
        reasons = "; ".join(f"{k}: {' '.join(v)}" if k != "__all__" else " ".join(v)
                            for k, v in exc.message_dict.items())
        modeladmin.message_user(request, f"{what.capitalize()} of run {source.pk} refused: {reasons}",
                                messages.WARNING)
        return
    link = format_html('<a href="{}">run {}</a>', reverse("admin:voyage_run_change", args=[new.pk]), new.pk)
    modeladmin.message_user(request, format_html("{} of run {}: {} (seed {}, {} agents), ready to start.",
                                                 what.capitalize(),
                                                 source.pk, link, new.seed, new.agents.count()), messages.SUCCESS)
    for warning in getattr(new, "warnings", []):
        modeladmin.message_user(request, warning, messages.WARNING)


@admin.action(description="Clone selected runs (same configuration; a new seed if given)")
def clone_runs(modeladmin, request, queryset):
    raw = request.POST.get("seed", "").strip()
    if raw and not raw.lstrip("-").isdigit():
        modeladmin.message_user(request, f"Clone refused: the seed {raw!r} is not a whole number", messages.WARNING)
        return
    seed = int(raw) if raw else None
    for run in queryset.order_by("pk"):
        _report_new(modeladmin, request, "clone", run, lambda: clone_run(run, seed=seed))


@admin.action(description="Replay selected runs (a new run from their recorded answers)")
def replay_runs(modeladmin, request, queryset):
    for run in queryset.order_by("pk"):
        _report_new(modeladmin, request, "replay", run, lambda: replay_run(run))


RUN_SECTIONS = [
    ("Memory", {"fields": ("memory", "hot_memory_limit", "compaction_memory_count", "compaction_soft_chars",
                           "compaction_hard_chars")}),
    ("Reflections, attrition and fatigue", {"fields": ("reflection_ticks", "reflection_cooldown",
                                                       "importance_threshold", "attrition_threshold",
                                                       "fatigue_warning", "fatigue_limit")}),
    ("Model budget and the offline model", {"fields": ("budget_tokens", "budget_cost", "malformed_rate")}),
    ("Prompt layout", {"fields": ("context_layout", "example_answer")}),
    ("Profiles by call group and agent", {"fields": ("profile_routes",)}),
]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    """Runs are made by voyage.runs.config (the add form is its shell) and driven by voyage.runs.control."""

    list_display = ("id", "name", "scenario", "state", "tick", "target_ticks", "schedule", "seed", "profile",
                    "agents_count", "replay_of", "error", "pause_reason", "dashboard")
    list_filter = ("state", "schedule", "scenario")
    search_fields = ("name",)
    action_form = RunActionForm
    actions = [_control("start", "Start selected runs on the worker"), _control("pause", "Pause selected runs"),
               _control("resume", "Resume selected runs (after a pause or a fixed failure)"),
               _control("stop", "Stop selected runs (finished where they are)"), clone_runs, replay_runs]
    progress = ("dashboard", "state", "tick", "error", "pause_reason", "usage", "uuid", "claimed_by", "heartbeat_at",
                "created_at", "cast_shown", "scenario", "replay_of")

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = RunConfigForm if obj is None else RunChangeForm
        kwargs["fields"] = None  # the form says
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return [(None, {"fields": ("name", "scenario", "cast", "profile", ("schedule", "run_ahead"), "seed",
                                       ("length", "length_unit"))}), *RUN_SECTIONS]
        return [("Progress", {"fields": self.progress}),
                ("Configuration", {"fields": ("name", "profile", ("schedule", "run_ahead"), "seed", "target_ticks")}),
                *RUN_SECTIONS]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()

        if has_started(obj):  # what it was configured with stays: only the budget and length may grow
            editable = {"name", *GROWABLE}
            fixed = [f for f in ("profile", "schedule", "seed", *PARAMETERS) if f not in editable]
            return (*self.progress, *fixed)
        return self.progress

    def save_model(self, request, obj, form, change):
        if change:
            run = update_run_params(obj, **form.changes())
        else:
            run = configure_run(**form.config())
            obj.pk = obj.id = run.pk
            obj._state.adding, obj._state.db = False, run._state.db
            self.message_user(request, f"Run {run.pk} is ready to start: {run.agents.count()} agents asleep in their "
                                       f"home rooms, waking at tick 0.", messages.SUCCESS)
        for warning in getattr(run, "warnings", []):
            self.message_user(request, f"Warning: {warning}", messages.WARNING)

    def save_related(self, request, form, formsets, change):
        pass  # a run's agents are made by configure_run; it has no inline rows

    @admin.display(description="dashboard")
    def dashboard(self, obj):
        if obj is None or obj.pk is None:
            return "-"
        return format_html('<a href="/runs/{}/">live dashboard</a>', obj.pk)

    @admin.display(description="agents")
    def agents_count(self, obj):
        return obj.agents.count()

    @admin.display(description="cast")
    def cast_shown(self, obj):
        if obj is None or obj.pk is None:
            return "-"
        return ", ".join(obj.agents.order_by("persona__key").values_list("persona__display_name", flat=True))

    @admin.display(description="model calls: totals per purpose")
    def usage(self, obj):
        from django.utils.html import format_html_join

        if obj is None or obj.pk is None:
            return "-"
        totals = usage_totals(obj)
        rows = [("all", totals["run"])] + list(totals["by_purpose"].items()) + \
            [(f"profile {name}", t) for name, t in totals["by_profile"].items()]
        return format_html_join("", "<div>{}: {} calls, {} tokens ({} reasoning, {} cached), cost {}, {} retries, "
                                "{} unanswered</div>",
                                ((name, t["calls"], t["tokens"], t["reasoning_tokens"], t["cached_tokens"], t["cost"],
                                  t["retries"], t["no_answer"]) for name, t in rows))


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("run", "tick", "seq", "kind", "actor", "room", "text")
    list_filter = (*inspection_filters(agent_path="actor"), "kind")
    list_select_related = ("actor__persona", "room")
    search_fields = ("text",)


@admin.register(LLMCall)
class LLMCallAdmin(ReadOnlyAdmin):
    """Every model call with its exact prompt, as sent."""

    list_display = ("id", "run", "tick", "agent", "purpose", "outcome", "answered", "attempts", "latency_ms",
                    "prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens", "cost")
    list_filter = (*inspection_filters(), "purpose", "outcome", "answered")
    list_select_related = ("agent__persona",)
    search_fields = ("raw_answer", "detail", "error")
    readonly_fields = ("prompt_view",)
    exclude = ("prompt_z",)

    @admin.display(description="prompt (exactly as sent)")
    def prompt_view(self, obj):
        from django.utils.html import format_html

        return format_html('<pre style="white-space: pre-wrap">{}</pre>', prompt_text(obj.prompt))

# Export and fork (voyage/admin/export.py).
RunAdmin.actions = [*RunAdmin.actions, export_run_action, fork_run_action]
RunAdmin.action_form = ForkActionForm
