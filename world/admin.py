from django.contrib import admin

from world.models import AgentState, Exit, Persona, Prop, Room, Rung, Scenario, SoulEntry


class SoulEntryInline(admin.TabularInline):
    model = SoulEntry
    extra = 1


class RungInline(admin.TabularInline):
    model = Rung
    extra = 0


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "start_date")
    inlines = [RungInline]


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ("name", "deck", "scale", "ambient_noise", "private", "scenario")
    list_filter = ("scenario", "deck", "scale", "ambient_noise", "private")
    search_fields = ("name", "key")


@admin.register(Exit)
class ExitAdmin(admin.ModelAdmin):
    list_display = ("a", "b", "scenario")
    list_filter = ("scenario",)


@admin.register(Prop)
class PropAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "room", "owner")
    list_filter = ("scenario", "kind")
    search_fields = ("name",)


@admin.register(Persona)
class PersonaAdmin(admin.ModelAdmin):
    list_display = ("display_name", "key", "home_node", "spouse", "scenario")
    list_filter = ("scenario",)
    search_fields = ("display_name", "key")
    inlines = [SoulEntryInline]


@admin.register(Rung)
class RungAdmin(admin.ModelAdmin):
    list_display = ("scenario", "level", "name", "gate_prop", "min_ticks_since_previous")


@admin.register(AgentState)
class AgentStateAdmin(admin.ModelAdmin):
    list_display = ("persona", "run", "location", "rung", "alive", "asleep", "busy_until_tick", "fatigue")
    list_filter = ("run", "rung", "alive", "asleep")


@admin.register(SoulEntry)
class SoulEntryAdmin(admin.ModelAdmin):
    list_display = ("persona", "position", "text")
    list_filter = ("persona__scenario",)
    search_fields = ("text", "persona__display_name")
