"""What the measures read, loaded for a whole set of runs at once: each table below is ONE query
(grouped in the database where it can be), made the first time a measure asks for it.

Days: an event at tick t belongs to day t // 480 + 1, except that the steps after a tick's increment
write at the next tick (the bulletin of a one-day run is written at tick 480): anything beyond a
run's last day counts in its last day. A run that has reached tick T has ceil(T / 480) days.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cached_property

from django.db.models import Count, F, Q, Sum
from django.db.models.functions import Coalesce

from memories.models import DiaryEntry, Dream, MemorySummary, TrustHistory
from world.time import TICKS_PER_DAY
from voyage.gateway.base import INSTRUMENT_PURPOSES
from voyage.models import Event, LLMCall, Run
from world.models import AgentState, Rung

DAY = (F("tick") / TICKS_PER_DAY)  # integer division on SQLite and PostgreSQL alike


@dataclass(frozen=True)
class RunInfo:
    id: int
    tick: int
    agents: int
    started_at: datetime | None
    last_tick_at: datetime | None

    @property
    def days(self) -> int:
        return max(1, -(-self.tick // TICKS_PER_DAY))

    def day_of(self, tick: int) -> int:
        """1-based; clamped to the run's last day."""
        return min(max(tick, 0) // TICKS_PER_DAY, self.days - 1) + 1

    def day_end(self, day: int) -> int:
        return day * TICKS_PER_DAY


class Tables:
    def __init__(self, run_ids):
        self.run_ids = list(run_ids)

    @cached_property
    def runs(self) -> dict[int, RunInfo]:
        rows = (Run.objects.filter(pk__in=self.run_ids).order_by()
                .annotate(n_agents=Count("agents"))
                .values_list("pk", "tick", "n_agents", "study_member__started_at", "created_at", "heartbeat_at"))
        return {pk: RunInfo(pk, tick, n, started or created, beat) for pk, tick, n, started, created, beat in rows}

    def _by_day(self, rows):
        """Rows grouped by (run, day) in SQL, re-keyed with the run's own day (clamped) and summed."""
        out: dict[tuple[int, int], dict] = defaultdict(lambda: defaultdict(float))
        for row in rows:
            run = self.runs[row.pop("run_id")]
            day = run.day_of(row.pop("day_index") * TICKS_PER_DAY)
            for k, v in row.items():
                out[(run.id, day)][k] += float(v) if isinstance(v, Decimal) else (v or 0)
        return out

    @cached_property
    def calls(self) -> dict[tuple[int, int], dict]:
        # The run's own calls: interviews and surveys (a study's own surveys too) are not the run's doing.
        rows = (LLMCall.objects.filter(run_id__in=self.run_ids).exclude(purpose__in=INSTRUMENT_PURPOSES).order_by()
                .values("run_id", day_index=DAY)
                .annotate(calls=Count("id"),
                          actions=Count("id", filter=Q(purpose="action")),
                          action_fails=Count("id", filter=Q(purpose="action", outcome=LLMCall.ACTION_FAIL)),
                          retries=Coalesce(Sum(F("attempts") - 1), 0),
                          tokens=Coalesce(Sum(F("prompt_tokens") + F("completion_tokens")), 0),
                          cost=Sum("cost")))
        return self._by_day(rows)

    @cached_property
    def event_counts(self) -> dict[tuple[int, int], dict]:
        """{(run, day): {kind: n}} for the kinds a count measure needs."""
        rows = (Event.objects.filter(run_id__in=self.run_ids, kind__in=("death",)).order_by()
                .values("run_id", "kind", day_index=DAY).annotate(n=Count("id")))
        out: dict[tuple[int, int], dict] = defaultdict(lambda: defaultdict(int))
        for row in rows:
            run = self.runs[row["run_id"]]
            out[(run.id, run.day_of(row["day_index"] * TICKS_PER_DAY))][row["kind"]] += row["n"]
        return out

    @cached_property
    def rung_levels(self) -> list[int]:
        return sorted(set(Rung.objects.filter(scenario__runs__in=self.run_ids).values_list("level", flat=True)))

    @cached_property
    def rungs_reached(self) -> dict[int, list[tuple[int, int]]]:
        """{run: [(tick, level), ...]} — one entry per agent and rung, the first time it got there."""
        first: dict[tuple[int, int, int], int] = {}
        rows = Event.objects.filter(run_id__in=self.run_ids, kind="rung").order_by().values_list(
            "run_id", "actor_id", "tick", "data")
        for run_id, actor, tick, data in rows:
            key = (run_id, actor, int(data.get("rung", 0)))
            first[key] = min(tick, first.get(key, tick))
        out: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for (run_id, _, level), tick in first.items():
            out[run_id].append((tick, level))
        return out

    @cached_property
    def speech(self) -> dict[tuple[int, int], list[tuple[str, int, bool | None]]]:
        """{(run, day): [(volume, words, reached only its target — None when it had no target)]}."""
        out: dict[tuple[int, int], list] = defaultdict(list)
        rows = Event.objects.filter(run_id__in=self.run_ids, kind="communicate").order_by().values_list(
            "run_id", "tick", "text", "data")
        for run_id, tick, text, data in rows:
            target = data.get("target")
            only = None
            if target:
                heard = {k for k, mode in (data.get("delivered") or {}).items() if mode == "HEARD"}
                only = heard == {target}
            out[(run_id, self.runs[run_id].day_of(tick))].append((data.get("volume", ""), len(text.split()), only))
        return out

    @cached_property
    def trust(self) -> dict[int, list[tuple[int, int, float, str]]]:
        """{run: [(tick, entry, score, label), ...]} every change of the trust ledger, in order."""
        out: dict[int, list] = defaultdict(list)
        rows = (TrustHistory.objects.filter(entry__run_id__in=self.run_ids).order_by("tick", "id")
                .values_list("entry__run_id", "tick", "entry_id", "score", "label"))
        for run_id, tick, entry, score, label in rows:
            out[run_id].append((tick, entry, score, label))
        return out

    @cached_property
    def agent_keys(self) -> dict[int, list[str]]:
        """{run: [persona key, ...]} every agent of the run, living or dead: the networks' nodes."""
        out: dict[int, list[str]] = defaultdict(list)
        for run_id, key in (AgentState.objects.filter(run_id__in=self.run_ids).order_by("persona__key")
                            .values_list("run_id", "persona__key")):
            out[run_id].append(key)
        return out

    @cached_property
    def heard(self) -> dict[tuple[int, int], Counter]:
        """{(run, day): {(speaker, listener): utterances}} of every utterance whose words were HEARD."""
        out: dict[tuple[int, int], Counter] = defaultdict(Counter)
        rows = Event.objects.filter(run_id__in=self.run_ids, kind="communicate").order_by().values_list(
            "run_id", "tick", "actor__persona__key", "data__delivered")
        for run_id, tick, speaker, delivered in rows:
            pairs = out[(run_id, self.runs[run_id].day_of(tick))]
            for listener, mode in (delivered or {}).items():
                if mode == "HEARD":
                    pairs[(speaker, listener)] += 1
        return out

    @cached_property
    def trust_ties(self) -> dict[int, list[tuple[int, str, str, float]]]:
        """{run: [(tick, holder, judged, score), ...]} every change of the trust ledger, in order."""
        out: dict[int, list] = defaultdict(list)
        rows = (TrustHistory.objects.filter(entry__run_id__in=self.run_ids).order_by("tick", "id")
                .values_list("entry__run_id", "tick", "entry__agent__persona__key", "entry__other__persona__key",
                             "score"))
        for run_id, tick, holder, judged, score in rows:
            out[run_id].append((tick, holder, judged, score))
        return out

    @cached_property
    def writing(self) -> dict[tuple[int, int], dict]:
        """{(run, day): {"summaries": n, "eras": n, "dreams": n, "diary_entries": n}}."""
        out: dict[tuple[int, int], dict] = defaultdict(lambda: defaultdict(int))
        queries = {
            "summaries": MemorySummary.objects.filter(level=0),
            "eras": MemorySummary.objects.filter(level__gt=0),
            "dreams": Dream.objects.all(),
            "diary_entries": DiaryEntry.objects.all(),
        }
        for name, rows in queries.items():
            for row in (rows.filter(run_id__in=self.run_ids).order_by().values("run_id", day_index=DAY)
                        .annotate(n=Count("id"))):
                run = self.runs[row["run_id"]]
                out[(run.id, run.day_of(row["day_index"] * TICKS_PER_DAY))][name] += row["n"]
        return out

