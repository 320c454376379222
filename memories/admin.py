"""Memory is read-only in the admin: staff inspect it, nobody edits what an agent remembers."""
from django.contrib import admin

from memories.models import DiaryEntry, Dream, Memory, MemorySummary, PendingMemoryJob, TrustEntry, TrustHistory


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Memory)
class MemoryAdmin(ReadOnlyAdmin):
    list_display = ("id", "agent", "tick", "kind", "importance", "text")
    list_filter = ("kind", "run")
    search_fields = ("text",)


@admin.register(MemorySummary)
class MemorySummaryAdmin(ReadOnlyAdmin):
    list_display = ("agent", "level", "first_row", "last_row", "row_count", "tick", "folded_into")


class TrustHistoryInline(admin.TabularInline):
    model = TrustHistory
    extra = 0
    can_delete = False
    readonly_fields = ("tick", "score", "label", "emotional_tone", "rationale")


@admin.register(TrustEntry)
class TrustEntryAdmin(ReadOnlyAdmin):
    list_display = ("agent", "other", "label", "score", "interaction_count", "first_met_tick")
    inlines = [TrustHistoryInline]


@admin.register(TrustHistory)
class TrustHistoryAdmin(ReadOnlyAdmin):
    list_display = ("entry", "tick", "label", "score")


@admin.register(Dream)
class DreamAdmin(ReadOnlyAdmin):
    list_display = ("agent", "tick", "identity")
    list_filter = ("run",)


@admin.register(DiaryEntry)
class DiaryEntryAdmin(ReadOnlyAdmin):
    list_display = ("agent", "date", "mood", "location", "text")
    list_filter = ("run", "mood")
    search_fields = ("text",)


@admin.register(PendingMemoryJob)
class PendingMemoryJobAdmin(ReadOnlyAdmin):
    """Compaction and dream jobs queued for the memory worker and not yet done."""

    list_display = ("name", "run", "queued_at")
    list_filter = ("run",)
