"""Memory-row references that survive a move between databases.

Summaries and dreams name the range of raw rows they cover (`first_row`, `last_row`), a reflection
names its evidence, a model call the rows recalled into its prompt and an agent's recall state the
rows its prompts recall (AgentState.recall, resolved when a world loads it), all by `memory_stream` id,
and compaction goes on from those ids when the run continues. Ids differ in another database, so a fixture writes each reference as a
*row number*: -(n + 1) for the agent's n-th row (0-based, in id order). Real ids are positive, so
a negative value can only be a row number. While `loaddata` saves the rows (raw saves), the
`pre_save` handler here turns row numbers back into the ids the rows received; the agent's rows
come earlier in the fixture than anything that references them.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable
from memories.models import Dream, Memory, MemorySummary
from voyage.models import LLMCall, Run
from world.models import AgentState


class UnknownRow(ValueError):
    """A reference to a row that is not in the agent's stream (the fixture is damaged)."""


def number(ordinal: int) -> int:
    return -(ordinal + 1)


def ordinal(value: int) -> int:
    return -value - 1


def is_number(value) -> bool:
    return isinstance(value, int) and value < 0


class RowNumbers:
    """Export side: the row number of every memory row that something in the run references."""

    def __init__(self, run_id: int):
        lists = list_fields()
        wanted: dict[int, set[int]] = defaultdict(set)  # agent id -> referenced row ids
        for model in (MemorySummary, Dream):
            for agent_id, first, last in model.objects.filter(run_id=run_id).values_list(
                    "agent_id", "first_row", "last_row").iterator(chunk_size=2000):
                wanted[agent_id].update(v for v in (first, last) if v)
        for model, field in lists.items():
            rows = model.objects.filter(run_id=run_id, agent__isnull=False).exclude(**{field: []})
            for agent_id, ids in rows.values_list("agent_id", field).iterator(chunk_size=2000):
                wanted[agent_id].update(ids)
        for agent_id, recall in AgentState.objects.filter(run_id=run_id).values_list("id", "recall"):
            wanted[agent_id].update(i for i in (recall or {}).get("ids", ()) if not is_number(i))
        self.numbers: dict[int, int] = {}
        agent, n = None, 0
        rows = Memory.objects.filter(run_id=run_id).order_by("agent_id", "id").values_list("agent_id", "id")
        for agent_id, row_id in rows.iterator(chunk_size=5000):
            if agent_id != agent:
                agent, n = agent_id, 0
            if row_id in wanted[agent_id]:
                self.numbers[row_id] = number(n)
            n += 1

    def of(self, row_id):
        if not row_id:
            return row_id
        try:
            return self.numbers[row_id]
        except KeyError:
            raise UnknownRow(f"memory row {row_id} is referenced but is not in the run's stream") from None

    def all_of(self, row_ids: Iterable[int]) -> list[int]:
        return [self.of(r) for r in row_ids]

    def recall_of(self, recall: dict) -> dict:
        """An agent's recall state (AgentState.recall) with its rows as row numbers; a loaded copy
        not yet continued holds numbers already (memories.context.load_recalled resolves them)."""
        if not recall.get("ids"):
            return recall
        return {**recall, "ids": [r if is_number(r) else self.of(r) for r in recall["ids"]]}


# The ids of each agent's rows loaded so far, in id order. A load only appends rows (with larger ids),
# so a list read earlier stays a true prefix: it is read again only when a reference goes past its
# end. Cleared when a fixture's run is saved, which starts every load.
_loaded_ids: dict[int, list[int]] = {}


def ids_of(agent_id: int, numbers: list[int]) -> dict[int, int]:
    """Import side: row number -> the id the agent's row got in this database."""
    ordinals = [ordinal(v) for v in numbers]
    ids = _loaded_ids.get(agent_id, [])
    if max(ordinals) >= len(ids):
        ids = _loaded_ids[agent_id] = list(
            Memory.objects.filter(agent_id=agent_id).order_by("id").values_list("id", flat=True))
    found = {}
    for value, o in zip(numbers, ordinals):
        if o >= len(ids):
            raise UnknownRow(f"agent {agent_id} has no memory row number {o} (the fixture refers to a row "
                             f"it does not contain)")
        found[value] = ids[o]
    return found


def list_fields() -> dict:
    """Models whose JSON list field holds ids of their agent's rows."""
    return {Memory: "evidence", LLMCall: "recalled"}


def resolve_on_load(sender, instance, raw=False, **kwargs) -> None:
    """pre_save: during loaddata (raw), turn row numbers into this database's ids."""
    if not raw:
        return
    if sender._meta.label == "voyage.Run":
        _loaded_ids.clear()
        return
    field = list_fields().get(sender)
    if field:
        values = getattr(instance, field) or []
        refs = [v for v in values if is_number(v)]
        if refs:
            ids = ids_of(instance.agent_id, refs)
            setattr(instance, field, [ids.get(v, v) for v in values])
        return
    refs = [v for v in (instance.first_row, instance.last_row) if is_number(v)]
    if refs:
        ids = ids_of(instance.agent_id, refs)
        instance.first_row = ids.get(instance.first_row, instance.first_row)
        instance.last_row = ids.get(instance.last_row, instance.last_row)


def connect() -> None:
    from django.db.models.signals import pre_save

    for model in (*list_fields(), MemorySummary, Dream, Run):
        pre_save.connect(resolve_on_load, sender=model, dispatch_uid=f"voyage-export-rows-{model.__name__}")
