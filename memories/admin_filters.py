"""Admin filters for inspecting memory: by run, by one agent of that run, by day (a tick range), and
by an exact tick. Each takes the lookup to its field, since trust history reaches run and agent
through its ledger entry."""
from __future__ import annotations

from django.contrib import admin

from voyage.models import Run
from world.models import AgentState
from world.time import TICKS_PER_DAY


def run_filter(run_path: str = "run"):
    class RunFilter(admin.SimpleListFilter):
        title = "run"
        parameter_name = "run_id"

        def lookups(self, request, model_admin):
            return [(r.pk, f"{r.pk}: {r}") for r in Run.objects.order_by("-pk")[:50]]

        def queryset(self, request, queryset):
            return queryset.filter(**{f"{run_path}_id": self.value()}) if self.value() else queryset

    return RunFilter


def agent_filter(agent_path: str = "agent", run_path: str = "run"):
    class AgentFilter(admin.SimpleListFilter):
        """The agents of the run chosen in the run filter (choose a run first)."""

        title = "agent (choose a run first)"
        parameter_name = "agent_id"

        def lookups(self, request, model_admin):
            run_id = request.GET.get("run_id")
            if not run_id or not run_id.isdigit():
                return []
            return [(a.pk, a.persona.display_name) for a in
                    AgentState.objects.filter(run_id=run_id).select_related("persona").order_by("persona__key")]

        def queryset(self, request, queryset):
            return queryset.filter(**{f"{agent_path}_id": self.value()}) if self.value() else queryset

    return AgentFilter


def day_filter(tick_path: str = "tick"):
    class DayFilter(admin.SimpleListFilter):
        """Simulated days (480 ticks each); `?tick=N` in the address picks one exact tick."""

        title = "day"
        parameter_name = "day"

        def lookups(self, request, model_admin):
            from django.db.models import Max

            last = Run.objects.aggregate(last=Max("tick"))["last"]  # cheap: no scan of a long stream
            days = 0 if last is None else last // TICKS_PER_DAY + 1
            return [(d, f"day {d + 1} (ticks {d * TICKS_PER_DAY}–{(d + 1) * TICKS_PER_DAY - 1})")
                    for d in range(min(days, 60))]

        def queryset(self, request, queryset):
            if self.value() and self.value().isdigit():
                d = int(self.value())
                queryset = queryset.filter(**{f"{tick_path}__gte": d * TICKS_PER_DAY,
                                              f"{tick_path}__lt": (d + 1) * TICKS_PER_DAY})
            return queryset

    return DayFilter


def tick_filter(tick_path: str = "tick"):
    class TickFilter(admin.SimpleListFilter):
        """One exact tick, from the address (`?tick=123`): too many to list."""

        title = "tick (add ?tick=N to the address)"
        parameter_name = "tick"

        def lookups(self, request, model_admin):
            value = request.GET.get("tick")
            return [(value, f"tick {value}")] if value and value.isdigit() else []

        def queryset(self, request, queryset):
            return queryset.filter(**{tick_path: int(self.value())}) if self.value() and self.value().isdigit() \
                else queryset

    return TickFilter


def inspection_filters(run_path="run", agent_path="agent", tick_path="tick"):
    return [run_filter(run_path), agent_filter(agent_path, run_path), day_filter(tick_path), tick_filter(tick_path)]
