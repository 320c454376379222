"""Assembling an agent's context for a model call, in a stable order (stable prefix first, so
provider prefix caching can hit): rules and rung, soul entries, summaries oldest first, latest
dream, recalled rows, the current situation, the hot window newest first, then the actions allowed
now with one example answer (world.rules.prompt_text.turn_guide). (The cached layout, at
the end of this module, places the same content for longer shared prefixes.)

Everything here is the agent's own: its identity as far as its rung reveals it, its own memory
rows. Nothing another agent thought or was not heard saying can enter.
"""
from __future__ import annotations

from memories.ablation import off
from memories.identity import identity_text
from memories.models import Memory
from memories.recall import recall
from memories.working import Recalled
from world.rules.ladder import ITEM_NAMES, PEOPLE_NAMES, SETTING, rung_spec
from world.rules.perception import Situation, render_situation
from world.rules.prompt_text import names_line, rules_text, turn_guide
from world.time import TICKS_PER_DAY, WIND_DOWN, part_of_day, sim_clock, time_of_day

ANSWER_NOW = "Your turn. Answer with the one JSON object only."
# The same ask in fewer words (the rules say the rest): the cached layout's tail is new every turn.
ANSWER_CACHED = "Your turn: one JSON object only."


def time_text(world, agent, tick: int) -> str:
    if world.knows(agent, SETTING):
        return f"It is {sim_clock(tick)}."
    return f"It is {part_of_day(tick)}."


def hot_window(world, agent) -> list:
    """The agent's last `hot_memory_limit` rows, oldest first (RunWorld may hold more: see hot_capacity)."""
    rows = list(world.hot[agent.id])
    return rows[max(0, len(rows) - world.run.hot_memory_limit):]


def hot_window_text(world, agent) -> str:
    lines = [f"[{time_of_day(h.tick)}] {h.text}" for h in reversed(hot_window(world, agent))]
    return HOT_HEADER + "\n" + ("\n".join(lines) if lines else "(none)")


def cues_for(world, agent, tick: int) -> frozenset[str]:
    cues = set()
    if tick % TICKS_PER_DAY >= WIND_DOWN:
        cues.add("wind_down")
    if agent.fatigue >= world.run.fatigue_warning:
        cues.add("fatigue")
    return frozenset(cues)


CUE_TEXT = {  # the wind-down's is the world's own (voice: wind_down_reminder)
    "fatigue": "You are bone-tired. You should sleep soon, or you will drop where you stand.",
}


def cue_text(world, cue: str) -> str:
    return world.voice.say("wind_down_reminder") if cue == "wind_down" else CUE_TEXT[cue]


RECALL_K = 4
RECALLED_CHARS = 160
SUMMARIES_HEADER = "What you remember of earlier times, oldest first:"
DREAM_HEADER = "Your last dream:"
RECALL_HEADER = "Older memories this place and these people bring back:"
HOT_HEADER = "Your memories, newest first:"


def past_text(world, agent, dream, tick: int) -> str:
    """Summaries oldest first (those a prompt of `tick` shows), then a dream: the slow-changing part
    of the prefix."""
    parts = []
    summaries = world.memory.summaries_at(agent.id, tick)
    if summaries:
        parts.append(SUMMARIES_HEADER + "\n" + "\n".join(f"- {s.text}" for s in summaries))
    if dream is not None:
        parts.append(DREAM_HEADER + "\n" + dream.text)
    return "\n\n".join(parts)


def recall_terms(situation: Situation) -> list[str]:
    """What the agent can name around it: the room, and the people and items here once its rung
    knows their names."""
    terms = [situation.room.name]
    if PEOPLE_NAMES in situation.knows:
        terms += [label for label, _, _ in situation.people]
    if ITEM_NAMES in situation.knows:
        terms += [label for label, _ in situation.things]
    return terms


RECALL_STALE_ROWS = 40  # recall again once this many rows have left the hot window

# A prompt is a function of the committed run and the tick: whatever process builds it — the one that
# ran the ticks before, one resumed after a kill or a pause, a worker's next chunk, a fork, the
# inspector — it gets the same words. So nothing a prompt shows may live only in a process. Recall's
# state (the names searched, the row count it searched at, the rows it found, the place of their block
# in the cached layout's log) is the agent's own column (AgentState.recall), committed with the tick
# and loaded with the world; the recalled rows' text is read again by id (`load_recalled`); the
# block's place is a row's number in the agent's stream, never an object. The example answer turns
# with the tick (turn_guide's key). Summaries, eras and dreams are rows a memory job writes whenever a
# worker gets to it: each shows from its job's tick + SHOW_LAG (`shown_from`), and the engine has every
# job that a prompt of the tick shows done first (WorkingMemory.ready), so `summaries_at` / `dream_at`
# are a function of the record and the tick. A cache added here keeps the rule: stored with the tick,
# or recomputed from committed rows. (docs/engine.md, "Every prompt from the record")


def recalled_text(world, agent, situation: Situation, tick: int, shown=None) -> str:
    """Up to RECALL_K older rows the situation brings back. The search is kept (AgentState.recall)
    while the same names are around and the hot window has moved on by fewer than RECALL_STALE_ROWS
    rows, so most action calls cost no query. Only rows older than those the prompt shows (`shown`,
    by default `shown_rows`) are searched."""
    if off(world.run, "recall"):
        agent.recall = {}  # no rows recalled into this prompt
        return ""
    terms = tuple(recall_terms(situation))
    if recall_cached(world, agent, terms):
        return recalled_block(world, agent)
    hot = shown_rows(world, agent) if shown is None else shown
    before = next((h.id for h in hot if h.id is not None), None)  # the oldest committed row shown
    if before is None:
        agent.recall = {}  # no rows recalled into this prompt
        return ""
    hits = _distinct(recall(agent.id, terms, k=RECALL_K * 2, before_id=before, now_tick=tick))[:RECALL_K]
    hits = sorted(hits, key=lambda h: h.id)
    ids = [h.id for h in hits]
    state = agent.recall
    after = state.get("after") if state.get("ids") == ids else None  # the same rows again: they keep their place
    agent.recall = {"terms": list(terms), "at": world.memory.load[agent.id].count, "ids": ids, "after": after}
    text = block_text(hits)
    world.memory.recalled[agent.id] = Recalled(tuple(ids), text)
    return text


def block_text(rows) -> str:
    """The recalled block: each row's time and the start of its words, oldest first ("" for none)."""
    if not rows:
        return ""
    return RECALL_HEADER + "\n" + "\n".join(f"[{sim_clock(h.tick)}] {h.text[:RECALLED_CHARS]}" for h in rows)


def recalled_block(world, agent) -> str:
    """The block of the rows AgentState.recall names: held by the world, or read again by id."""
    ids = tuple(agent.recall.get("ids") or ())
    held = world.memory.recalled.get(agent.id)
    if held is None or held.ids != ids:
        load_recalled(world, [agent])
        held = world.memory.recalled[agent.id]
    return held.text


def load_recalled(world, agents) -> None:
    """The recalled blocks of these agents' committed recall states, their rows read by id (one query).
    A state loaded from a fixture names its rows by number (voyage/export/rows.py): they get their ids."""
    wanted = {a.id: row_ids(a) for a in agents}
    rows = {(r.agent_id, r.id): r for r in Memory.objects.filter(id__in=[i for ids in wanted.values() for i in ids])
            .only("id", "agent_id", "tick", "text")}
    for aid, ids in wanted.items():
        missing = [i for i in ids if (aid, i) not in rows]
        if missing:
            raise ValueError(f"agent {aid}: its recall state names memory rows {missing} that are not its own")
        world.memory.recalled[aid] = Recalled(ids, block_text([rows[(aid, i)] for i in ids]))


def row_ids(agent) -> tuple[int, ...]:
    """The ids of the rows the agent's recall state names, row numbers (-(n + 1): its n-th row) made ids."""
    ids = agent.recall.get("ids") or ()
    if any(i < 0 for i in ids):
        stream = Memory.objects.filter(agent_id=agent.id).order_by("id").values_list("id", flat=True)
        ids = [stream[-i - 1] if i < 0 else i for i in ids]
        agent.recall = {**agent.recall, "ids": ids}
    return tuple(ids)


def shown_rows(world, agent) -> list:
    """The agent's recent rows an action prompt shows, oldest first: the cached layout's log, else the
    hot window. Recall searches the rows older than the oldest of them that is committed."""
    return log_rows(world, agent) if world.run.context_layout == CACHED_LAYOUT else hot_window(world, agent)


def recall_cached(world, agent, terms: tuple) -> bool:
    """Will recalled_text answer from the agent's recall state (no query of the committed rows)?"""
    state = agent.recall
    return bool(state) and tuple(state["terms"]) == terms and \
        0 <= world.memory.load[agent.id].count - state["at"] < RECALL_STALE_ROWS


def recalled_ids(world, agent) -> tuple[int, ...]:
    """The ids of the rows the last `recalled_text` for this agent put into its prompt (recorded
    with the call, so the inspector can show them)."""
    return tuple(agent.recall.get("ids") or ())


def _distinct(hits):
    """Leave out repeats (the same object examined twice reads the same)."""
    seen, out = set(), []
    for h in hits:
        key = h.text[:RECALLED_CHARS]
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out


def action_messages(world, agent, situation: Situation, tick: int, cues: frozenset[str]) -> list[dict]:
    """Stable prefix first: rules and rung, soul entries, summaries, latest dream. Then, in the seed
    layout: recalled rows, the current situation, and the hot window newest first; in the cached
    layout: what each action names after the rules, the recent rows as a log, oldest first (with the
    latest dream where it was dreamt and the recalled rows where they were first recalled), then what
    changes every turn (the time, the situation, cues, the compact guide), so consecutive prompts
    share all but their tail."""
    cached = world.run.context_layout == CACHED_LAYOUT
    if cached:
        log = log_rows(world, agent)
        dream, log_dreams = placed_dream(world.memory.dream_at(agent.id, tick), log)
    else:
        log, dream = None, world.memory.dream_at(agent.id, tick)
    past = past_text(world, agent, dream, tick)
    allowed = rung_spec(world.rungs, agent.rung).allowed_actions
    names = names_line(allowed) if cached else ""
    system = rules_text(allowed) + (names + "\n" if names else "") + "\n" + identity_text(agent, world)
    if past:
        system += "\n\n" + past
    recalled = recalled_text(world, agent, situation, tick, log)
    now = [time_text(world, agent, tick), render_situation(situation)] + [cue_text(world, c) for c in sorted(cues)]
    close = [turn_guide(situation, allowed, key=f"{agent.persona.key}:{tick}", example=world.run.example_answer,
                        compact=cached), ANSWER_CACHED if cached else ANSWER_NOW]
    if cached:
        user = [log_text(log, log_dreams, recalled, recall_place(world, agent, log))] + now + close
    else:
        user = [recalled] + now + [hot_window_text(world, agent)] + close
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(p for p in user if p)}]


# --- the cached layout's log ---------------------------------------------------------------
CACHED_LAYOUT = "cached"
LOG_HEADER = "Your memories, oldest first:"


def log_capacity(hot_limit: int) -> int:
    """The most rows the cached layout's log shows: 1.7 hot windows."""
    return hot_limit + 7 * hot_limit // 10


def log_step(hot_limit: int) -> int:
    """How far the log's first row moves at once: one and a half hot windows."""
    return max(1, 3 * hot_limit // 2)


def hot_capacity(run) -> int:
    """Rows RunWorld keeps per agent: the hot window, and in the cached layout what its log needs."""
    limit = run.hot_memory_limit
    return log_capacity(limit) if run.context_layout == CACHED_LAYOUT else limit


def log_start(unsummarised: int, hot_limit: int) -> int:
    """Where the cached layout's log begins, as an index into the agent's rows that no summary covers
    (oldest 0). It moves only in steps of one and a half hot windows, so between two moves (and the
    compactions that reset the count) the log only grows: it shows from a fifth of a window up to
    1.7 windows of the newest rows (0.95 of a window on average, so prompts are no longer than the
    seed layout's), never more than RunWorld holds. Pure."""
    step = log_step(hot_limit)
    over = unsummarised - log_capacity(hot_limit)
    return max(0, -(-over // step) * step)


def log_rows(world, agent) -> list:
    """The rows the cached layout's log shows, oldest first."""
    hot = world.hot[agent.id]
    unsummarised = world.memory.load[agent.id].count
    shown = min(len(hot), unsummarised - log_start(unsummarised, world.run.hot_memory_limit))
    return list(hot)[len(hot) - shown:] if shown > 0 else []


def placed_dream(dream, log) -> tuple:
    """Where the cached layout shows the latest dream: in the log, after every row of the tick its
    sleep began, once the log reaches back that far; otherwise last in the system prompt, as the seed
    layout shows it. A new dream then joins the end of the log, and the last one leaves the log (or
    the system prompt) at its own place: the prompt before that place is kept. Returns (the dream for
    the system prompt or None, the dreams for the log). Pure."""
    if dream is None:
        return None, []
    if log and dream.tick >= log[0].tick:
        return None, [dream]
    return dream, []


def recall_place(world, agent, log) -> int:
    """Where the cached layout's log shows the recalled rows (as an index into `log`): after the row
    that was the newest when these rows were first recalled, so while the same rows come back the log
    grows after them and the prompt up to there is kept; when they are new, or that row has left the
    log, after the newest row (and they keep that place from then on). The row is held by its number
    in the agent's stream (AgentState.recall's `after`): the log's last row is the newest."""
    state = agent.recall
    if not state or not log:
        return len(log)
    newest = world.memory.rows[agent.id]
    first = newest - len(log) + 1  # the number of the log's first row
    after = state.get("after")
    if after is not None and first <= after <= newest:
        return after - first + 1
    agent.recall = {**state, "after": newest}
    return len(log)


def log_text(rows, dreams=(), recalled: str = "", at: int | None = None) -> str:
    """The log, oldest first, with the dreams after the rows of the tick their sleep began and the
    recalled rows (`recalled`, a block of lines) after the first `at` rows."""
    lines, pending = [], list(dreams)
    for i, h in enumerate(rows):
        while pending and pending[0].tick < h.tick:
            lines.append(dream_line(pending.pop(0)))
        if recalled and i == at:
            lines.append(recalled)
        lines.append(f"[{time_of_day(h.tick)}] {h.text}")
    lines += [dream_line(d) for d in pending]
    if recalled and at is not None and at >= len(rows):
        lines.append(recalled)
    return LOG_HEADER + "\n" + ("\n".join(lines) if lines else "(none)")


def dream_line(dream) -> str:
    """A dream as a line of the log: its words on one line, like every row of the log."""
    return f"[{time_of_day(dream.tick)}] You dream: " + " ".join(dream.text.split())


def writing_messages(world, agent, instruction: str, lines: list[str]) -> list[dict]:
    """A silent call about the agent's own past (reflection and the like)."""
    system = identity_text(agent, world) + "\n\n" + instruction
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(lines) or "(nothing yet)"}]
