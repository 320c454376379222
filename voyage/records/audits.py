"""Audits of a finished run, on any world: privacy (no whisper reaches a bystander, no monologue
another agent, no name an agent below the rung that knows names), the ladder (every rung climbed in
order, by the agent's own gating prop), and the voice (no word of the default world that the
world's own text does not use). Each counts what it checked beside what it found, so an empty
check is told from a pass. They read the event log, the memory rows and the recorded calls, never
the engine's own account."""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass

from memories.models import DiaryEntry, Memory, MemorySummary
from voyage.models import Event, LLMCall
from world.drafting.words import words_in
from world.models import AgentState, Room

THOUGHT = re.compile(r"\[thought [0-9a-f]{8}\]")  # the offline policy's monologue ids
NAMING_KINDS = ("examined", "heard", "bulletin")  # rows through which a rung-0 agent may meet a name


@dataclass(frozen=True)
class Audits:
    leaks: int  # privacy: whispers heard by a bystander, thoughts in another's memory or prompt, names too early
    whispers_checked: int
    thoughts_checked: int
    prompts_checked: int
    ladder_breaks: int  # a rung climbed out of order, or without its own gating prop
    rungs_checked: int
    foreign_words: int  # (text, word) pairs: a default world's word the paragraph does not use, in a text of the run
    foreign: tuple[str, ...]
    texts_checked: int

    @property
    def clean(self) -> bool:
        return not (self.leaks or self.ladder_breaks or self.foreign_words)

    def as_dict(self) -> dict:
        return {**asdict(self), "foreign": list(self.foreign), "clean": self.clean}


@dataclass(frozen=True)
class Call:
    """A recorded call as the audits read it: its prompt decompressed once."""

    agent_id: int | None
    tick: int
    prompt: str  # the messages' contents, joined
    answer: str


def calls_of(run) -> list[Call]:
    return [Call(c.agent_id, c.tick, "\n".join(m["content"] for m in c.prompt), c.raw_answer)
            for c in LLMCall.objects.filter(run=run).iterator()]


def audit_run(run, allowed_text: str) -> Audits:
    """`allowed_text`: the paragraph the world was drafted from (its words are the world's own)."""
    calls = calls_of(run)
    whisper_leaks, whispers = whisper_leaks_of(run)
    thought_leaks, thoughts = thought_leaks_of(run, calls)
    name_leaks, prompts = early_names_of(run, calls)
    breaks, rungs = ladder_breaks_of(run)
    foreign, count, texts = foreign_words_of(run, allowed_text, calls)
    return Audits(leaks=whisper_leaks + thought_leaks + name_leaks, whispers_checked=whispers,
                  thoughts_checked=thoughts, prompts_checked=prompts, ladder_breaks=breaks, rungs_checked=rungs,
                  foreign_words=count, foreign=tuple(sorted(foreign)), texts_checked=texts)


def whisper_leaks_of(run) -> tuple[int, int]:
    """Whispers in vast rooms remembered word for word by anyone but whisperer and target."""
    vast = set(Room.objects.filter(scenario=run.scenario, scale="vast").values_list("id", flat=True))
    key_of = dict(AgentState.objects.filter(run=run).values_list("persona__key", "id"))
    leaks = checked = 0
    for e in Event.objects.filter(run=run, kind="communicate", data__volume="whisper", room_id__in=vast):
        checked += 1
        keep = {e.actor_id, key_of.get(e.data.get("target"))}
        leaks += (Memory.objects.filter(run=run, tick__gte=e.tick, text__contains=e.text)
                  .exclude(agent_id__in=keep).count())
    return leaks, checked


def thought_leaks_of(run, calls: list[Call]) -> tuple[int, int]:
    """Every offline monologue carries a unique token; another agent's memory or prompt holding it is a leak."""
    owner = thought_owners(run)
    leaks = sum(1 for agent_id, text in Memory.objects.filter(run=run, text__contains="[thought ")
                .values_list("agent_id", "text") for token in THOUGHT.findall(text) if owner.get(token) != agent_id)
    for call in calls:
        leaks += sum(1 for token in THOUGHT.findall(call.prompt) if owner.get(token) != call.agent_id)
    return leaks, len(owner)


def thought_owners(run) -> dict[str, int]:
    """Each offline monologue token -> the agent whose action answer thought it."""
    owner = {}
    for agent_id, raw in LLMCall.objects.filter(run=run, purpose="action").values_list("agent_id", "raw_answer"):
        try:
            monologue = json.loads(raw).get("internal_monologue") or ""
        except (ValueError, AttributeError):
            continue
        owner.update({token: agent_id for token in THOUGHT.findall(monologue)})
    return owner


def early_names_of(run, calls: list[Call]) -> tuple[int, int]:
    """Prompts of an agent still at rung 0 that show a person's name it had not read, heard or been
    told by then."""
    names = list(AgentState.objects.filter(run=run).values_list("persona__display_name", flat=True))
    climbed = {e.actor_id: e.tick for e in Event.objects.filter(run=run, kind="rung", data__rung=1)}
    met: dict[tuple[int, str], int] = {}
    for agent_id, tick, text in (Memory.objects.filter(run=run, kind__in=NAMING_KINDS).order_by("id")
                                 .values_list("agent_id", "tick", "text")):
        for name in names:
            if name in text:
                met.setdefault((agent_id, name), tick)
    leaks = checked = 0
    for call in calls:
        if call.agent_id is None or call.tick >= climbed.get(call.agent_id, call.tick + 1):
            continue
        leaks += sum(1 for n in names if n in call.prompt and met.get((call.agent_id, n), call.tick + 1) > call.tick)
        checked += 1
    return leaks, checked


def ladder_breaks_of(run) -> tuple[int, int]:
    """Each rung event: one level above the agent's last, at a tick it examined its own prop of the
    rung's gating kind."""
    specs = {s.level: s for s in run.scenario.rung_specs()}
    kind_of_gate = {"name_prop": "name", "fear_prop": "fear"}
    own = {(a.id, p.kind): p.name for a in AgentState.objects.filter(run=run).select_related("persona")
           for p in a.persona.props.all()}
    level = {}
    breaks = checked = 0
    for e in Event.objects.filter(run=run, kind="rung").order_by("seq"):
        checked += 1
        new = e.data.get("rung")
        gate = specs[new].gate_prop if new in specs else ""
        prop = own.get((e.actor_id, kind_of_gate.get(gate, "")))
        examined = prop is not None and Event.objects.filter(run=run, kind="interact", actor_id=e.actor_id,
                                                             tick=e.tick, data__prop=prop).exists()
        if new != level.get(e.actor_id, 0) + 1 or not examined:
            breaks += 1
        level[e.actor_id] = new
    return breaks, checked


def run_texts(run, calls: list[Call]) -> list[str]:
    """Everything the run wrote that an agent or a reader sees."""
    return [*Memory.objects.filter(run=run).values_list("text", flat=True),
            *MemorySummary.objects.filter(run=run).values_list("text", flat=True),
            *DiaryEntry.objects.filter(run=run).values_list("text", flat=True),
            *Event.objects.filter(run=run).values_list("text", flat=True),
            *(c.prompt + "\n" + c.answer for c in calls)]


def foreign_words_of(run, allowed_text: str, calls: list[Call]) -> tuple[set[str], int, int]:
    allowed = words_in(allowed_text)
    found: set[str] = set()
    count = 0
    texts = run_texts(run, calls)
    for text in texts:
        words = words_in(text) - allowed
        found |= words
        count += len(words)
    return found, count, len(texts)
