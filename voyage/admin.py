from django.contrib import admin, messages
from django.db import models

from voyage.models import Event, LLMCall, ModelProfile, Run


@admin.register(ModelProfile)
class ModelProfileAdmin(admin.ModelAdmin):
    """Model profiles: the key itself is never stored or shown, only whether its variable is set here."""

    list_display = ("name", "kind", "model", "base_url", "api_key_env", "key_is_set", "structured_output",
                    "concurrency", "price_in_per_m", "price_out_per_m")
    list_filter = ("kind", "structured_output")
    search_fields = ("name", "model", "base_url")
    readonly_fields = ("key_is_set",)
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    fieldsets = [
        (None, {"fields": ("name", "kind")}),
        ("Endpoint", {"fields": ("base_url", "model", "api_key_env", "key_is_set", "structured_output")}),
        ("Reasoning", {"fields": ("reasoning", "reasoning_on", "reasoning_off"),
                       "description": "Per call purpose (action, reflection, trust, compaction, era, bulletin, "
                                      "dream, diary, importance): true/false. The chosen body is merged into "
                                      "the request through extra_body."}),
        ("Sampling", {"fields": ("temperature", "max_tokens")}),
        ("Reliability", {"fields": ("timeout_s", "retries", "concurrency")}),
        ("Prices", {"fields": ("price_in_per_m", "price_out_per_m")}),
    ]

    @admin.display(boolean=True, description="key set here")
    def key_is_set(self, obj):
        import os

        if obj is None or not obj.api_key_env:
            return None
        return bool(os.environ.get(obj.api_key_env))


def _control(verb: str, description: str):
    """An admin action calling voyage.control.<verb> on each selected run, reporting each refusal."""

    @admin.action(description=description)
    def action(modeladmin, request, queryset):
        from voyage import control

        done = 0
        for run in queryset.order_by("pk"):
            try:
                getattr(control, verb)(run.pk)
                done += 1
            except control.ControlError as exc:
                modeladmin.message_user(request, str(exc), messages.WARNING)
        if done:
            modeladmin.message_user(request, f"{verb}: {done} run(s).", messages.SUCCESS)

    action.__name__ = f"{verb}_runs"
    return action


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "scenario", "state", "tick", "target_ticks", "schedule", "seed", "profile",
                    "replay_of", "error", "pause_reason")
    list_filter = ("state", "schedule", "scenario")
    readonly_fields = ("uuid", "tick", "state", "error", "claimed_by", "heartbeat_at", "created_at", "pause_reason",
                       "usage")
    actions = [_control("start", "Start selected runs on the worker"), _control("pause", "Pause selected runs"),
               _control("resume", "Resume selected runs (after a pause or a fixed failure)")]

    @admin.display(description="model calls: totals per purpose")
    def usage(self, obj):
        from django.utils.html import format_html_join

        from voyage.usage import usage_totals

        if obj is None or obj.pk is None:
            return "-"
        totals = usage_totals(obj)
        rows = [("all", totals["run"])] + list(totals["by_purpose"].items())
        return format_html_join("", "<div>{}: {} calls, {} tokens ({} reasoning, {} cached), cost {}, {} retries, "
                                "{} unanswered</div>",
                                ((name, t["calls"], t["tokens"], t["reasoning_tokens"], t["cached_tokens"], t["cost"],
                                  t["retries"], t["no_answer"]) for name, t in rows))


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("run", "tick", "seq", "kind", "actor", "room", "text")
    list_filter = ("kind", "run")
    search_fields = ("text",)

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(LLMCall)
class LLMCallAdmin(admin.ModelAdmin):
    list_display = ("id", "run", "tick", "agent", "purpose", "outcome", "answered", "attempts", "latency_ms",
                    "prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens", "cost")
    list_filter = ("purpose", "outcome", "answered", "run")
    readonly_fields = ("prompt_view",)
    exclude = ("prompt_z",)

    @admin.display(description="prompt")
    def prompt_view(self, obj):
        from voyage.gateway.prompts import prompt_text

        return prompt_text(obj.prompt)

    def has_change_permission(self, request, obj=None):
        return False
