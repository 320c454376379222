from django.contrib import admin

from voyage.models import Event, LLMCall, ModelProfile, Run


@admin.register(ModelProfile)
class ModelProfileAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "base_url", "model", "api_key_env", "concurrency")


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "scenario", "state", "tick", "target_ticks", "schedule", "seed", "error")
    list_filter = ("state", "schedule", "scenario")
    readonly_fields = ("uuid", "tick", "claimed_by", "heartbeat_at", "created_at")


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
