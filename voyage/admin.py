from django.contrib import admin, messages

from voyage.models import Event, LLMCall, ModelProfile, Run


@admin.register(ModelProfile)
class ModelProfileAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "base_url", "model", "api_key_env", "concurrency")


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
    list_display = ("id", "name", "scenario", "state", "tick", "target_ticks", "schedule", "seed", "error")
    list_filter = ("state", "schedule", "scenario")
    readonly_fields = ("uuid", "tick", "state", "error", "claimed_by", "heartbeat_at", "created_at")
    actions = [_control("start", "Start selected runs on the worker"), _control("pause", "Pause selected runs"),
               _control("resume", "Resume selected runs (after a pause or a fixed failure)")]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("run", "tick", "seq", "kind", "actor", "room", "text")
    list_filter = ("kind", "run")
    search_fields = ("text",)

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(LLMCall)
class LLMCallAdmin(admin.ModelAdmin):
    list_display = ("id", "run", "tick", "agent", "purpose", "outcome", "latency_ms", "attempts")
    list_filter = ("purpose", "outcome", "run")
    readonly_fields = ("prompt_view",)
    exclude = ("prompt_z",)

    @admin.display(description="prompt")
    def prompt_view(self, obj):
        from voyage.gateway.prompts import prompt_text

        return prompt_text(obj.prompt)

    def has_change_permission(self, request, obj=None):
        return False
