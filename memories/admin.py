"""Memory is read-only in the admin, for every user (superusers too): staff inspect what agents
remember, filtered by run, agent, kind, day or tick and searched by text; nobody edits it."""
from django.contrib import admin

from memories.admin_filters import inspection_filters, run_filter
from memories.models import DiaryEntry, Dream, Memory, MemorySummary, PendingMemoryJob, TrustEntry, TrustHistory
from world.admin_readonly import ReadOnlyAdmin


@admin.register(Memory)
class MemoryAdmin(ReadOnlyAdmin):
    list_display = ("id", "run", "agent", "tick", "kind", "importance", "depth", "text")
    list_filter = (*inspection_filters(), "kind")
    list_select_related = ("agent__persona",)
    search_fields = ("text",)


@admin.register(MemorySummary)
class MemorySummaryAdmin(ReadOnlyAdmin):
    list_display = ("id", "run", "agent", "level", "first_row", "last_row", "row_count", "tick", "folded_into", "text")
    list_filter = (*inspection_filters(), "level")
    list_select_related = ("agent__persona",)
    search_fields = ("text",)


class TrustHistoryInline(admin.TabularInline):
    model = TrustHistory
    extra = 0
    can_delete = False
    fields = readonly_fields = ("tick", "score", "label", "emotional_tone", "rationale")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(TrustEntry)
class TrustEntryAdmin(ReadOnlyAdmin):
    list_display = ("agent", "other", "label", "score", "emotional_tone", "interaction_count", "first_met_tick",
                    "updated_tick")
    list_filter = (*inspection_filters(tick_path="updated_tick"), "label")
    list_select_related = ("agent__persona", "other__persona")
    search_fields = ("rationale", "label", "other__persona__display_name")
    inlines = [TrustHistoryInline]


@admin.register(TrustHistory)
class TrustHistoryAdmin(ReadOnlyAdmin):
    list_display = ("entry", "tick", "label", "score", "emotional_tone", "rationale")
    list_filter = (*inspection_filters("entry__run", "entry__agent"), "label")
    search_fields = ("rationale", "label")


@admin.register(Dream)
class DreamAdmin(ReadOnlyAdmin):
    list_display = ("agent", "run", "tick", "identity", "places", "people")
    list_filter = inspection_filters()
    list_select_related = ("agent__persona",)
    search_fields = ("identity", "places", "people")


@admin.register(DiaryEntry)
class DiaryEntryAdmin(ReadOnlyAdmin):
    list_display = ("agent", "run", "date", "day", "tick", "mood", "location", "text")
    list_filter = (*inspection_filters(), "mood")
    list_select_related = ("agent__persona", "location")
    search_fields = ("text", "mood")


@admin.register(PendingMemoryJob)
class PendingMemoryJobAdmin(ReadOnlyAdmin):
    """Compaction and dream jobs that committed ticks asked for and that are not yet done: queued for
    the memory worker, or (not queued) waiting for their run's next process."""

    list_display = ("name", "run", "queued", "queued_at")
    list_filter = (run_filter(),)
