"""Assembling an agent's context for a model call, in a stable order (stable prefix first, so
provider prefix caching can hit): rules and rung, soul entries, summaries oldest first, latest
dream, recalled rows, the current situation, the hot window newest first.

Everything here is the agent's own: its identity as far as its rung reveals it, its own memory
rows. Nothing another agent thought or was not heard saying can enter.
"""
from __future__ import annotations

from voyage.engine.schedule import WIND_DOWN, clock, TICKS_PER_DAY
from world.rules.ladder import rung_spec
from world.rules.perception import Situation, render_situation
from world.rules.prompt_text import RULES

ANSWER_NOW = "Your turn. Answer with the one JSON object only."


def identity_text(world, agent) -> str:
    """Who the agent knows itself to be, gated by its rung."""
    persona = agent.persona
    spec = rung_spec(world.rungs, agent.rung)
    parts = [f"Your state of mind — rung {spec.level}, {spec.name}: {spec.reveals}"]
    if agent.rung >= 1:
        parts.append(f"You are {persona.display_name}.")
        parts.append(world.scenario.premise)
    else:
        parts.append("You do not know who you are, where you are, or when this is.")
    if agent.rung >= 2:
        parts.append(f"Your life on paper: {persona.history}")
        parts.append(f"What you fear: {persona.fear}")
        parts.append(f"Your secret: {persona.secret}")
    soul = world.soul.get(persona.id, [])
    if soul:
        parts.append("What you hold true, whatever else you forget:\n" + "\n".join(f"- {s}" for s in soul))
    return "\n\n".join(parts)


def time_text(agent, tick: int) -> str:
    if agent.rung >= 1:
        return f"It is {clock(tick)}."
    minutes = (tick % TICKS_PER_DAY) * 3
    part = "morning" if minutes < 360 else "afternoon" if minutes < 660 else "evening"
    return f"It is {part}."


def hot_window_text(world, agent) -> str:
    lines = [f"[{clock(h.tick)[-5:]}] {h.text}" for h in reversed(world.hot[agent.id])]
    return "Your memories, newest first:\n" + ("\n".join(lines) if lines else "(none)")


def cues_for(world, agent, tick: int) -> frozenset[str]:
    cues = set()
    if tick % TICKS_PER_DAY >= WIND_DOWN:
        cues.add("wind_down")
    if agent.fatigue >= world.run.fatigue_warning:
        cues.add("fatigue")
    return frozenset(cues)


CUE_TEXT = {
    "wind_down": "The stewards are dimming the lamps: retire to your cabin before nightfall.",
    "fatigue": "You are bone-tired. You should sleep soon, or you will drop where you stand.",
}


def action_messages(world, agent, situation: Situation, tick: int, cues: frozenset[str]) -> list[dict]:
    system = RULES + "\n" + identity_text(world, agent)
    user = [time_text(agent, tick), render_situation(situation)]
    user += [CUE_TEXT[c] for c in sorted(cues)]
    user += [hot_window_text(world, agent), ANSWER_NOW]
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(user)}]


def writing_messages(world, agent, instruction: str, lines: list[str]) -> list[dict]:
    """A silent call about the agent's own past (reflection and the like)."""
    system = identity_text(world, agent) + "\n\n" + instruction
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(lines) or "(nothing yet)"}]
