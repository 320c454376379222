"""Resolving one agent's action on the world: the consequences of move, interact, communicate,
sleep and attack, and ACTION_FAIL. Imperative shell over the pure rules in world/rules."""
from __future__ import annotations

import random

from memories.importance import importance_of
from voyage.engine.world import RunWorld
from voyage.engine.writer import TickWriter
from world.models import AgentState
from world.rules.acoustics import HEARD, OBSERVED, SHOUT_NEARBY, WHISPERED, Listener, route_speech
from world.rules.actions import Action, ActionFail
from world.rules.ladder import (FEAR, FEAR_PROP, ITEM_NAMES, NAME_PROP, OWN_NAME, SECRET, action_allowed, newly_known,
                                rung_after_interact, rung_spec)
from world.rules.perception import Situation, resolve_target
from world.time import busy_ticks

KILL_CHANCE_AWAKE = 0.5  # an attack on a sleeper always kills; on someone awake, half the time


def resolve_action(world: RunWorld, w: TickWriter, agent: AgentState, situation: Situation,
                   action: Action | ActionFail) -> str | None:
    """Apply the action; returns the ACTION_FAIL reason, or None on success."""
    agent.fatigue += 1
    w.touch(agent)
    if isinstance(action, ActionFail):
        return fail(world, w, agent, action.reason)
    if not action_allowed(world.rungs, agent.rung, action.action_type):
        spec = rung_spec(world.rungs, agent.rung)
        return fail(world, w, agent, f"your state of mind (rung {spec.level}, {spec.name}) does not allow "
                                     f"{action.action_type}", action)
    target = resolve_target(situation, action, world.voice.say("room_kind"))
    if isinstance(target, ActionFail):
        return fail(world, w, agent, target.reason, action)
    if target and target[0] in ("person", "prop") and not _still_here(world, agent, target):
        return fail(world, w, agent, f"{action.target} is no longer here", action)
    agent.busy_until_tick = w.tick + busy_ticks(action.duration_minutes)
    handler = {
        "move": _move,
        "interact": _interact,
        "communicate": _communicate,
        "sleep": _sleep,
        "attack": _attack,
    }[action.action_type]
    handler(world, w, agent, action, target)
    return None


def fail(world: RunWorld, w: TickWriter, agent: AgentState, reason: str, action: Action | None = None) -> str:
    """An ACTION_FAIL: a memory giving the reason, and one simulated minute lost (the turn)."""
    agent.busy_until_tick = w.tick + busy_ticks(1)
    w.remember(agent, "action_fail", f"ACTION_FAIL: {reason}. You lose a minute.")
    data = {"reason": reason}
    if action is not None:
        data["action_type"] = action.action_type
        data["target"] = action.target
    w.event("action_fail", actor=agent, room_id=agent.location_id, text=reason, data=data)
    return reason


def _still_here(world: RunWorld, agent: AgentState, target: tuple[str, int]) -> bool:
    kind, ident = target
    if kind == "prop":
        return world.props[ident].room_id == agent.location_id
    other = world.agents[ident]
    return other.alive and other.location_id == agent.location_id


def _own(world: RunWorld, w: TickWriter, agent: AgentState, action: Action) -> None:
    """The actor's own memory of what it did, monologue intact."""
    described = {
        "move": f"You set off for the {action.target}.",
        "interact": f"You turn to {action.target}.",
        "sleep": f"You lie down to sleep for {action.duration_minutes} minutes.",
        "attack": f"You attack {action.target}.",
    }.get(action.action_type)
    if action.action_type == "communicate":
        to = f" to {action.target}" if action.target else ""
        described = f'You {_verb(action.volume)}{to}: "{action.dialogue}"'
    text = described + (f" (You thought: {action.internal_monologue})" if action.internal_monologue else "")
    w.remember(agent, "action", text)


def _verb(volume: str) -> str:
    return {"whisper": "whisper", "normal": "say", "shout": "shout"}[volume]


# --- move ----------------------------------------------------------------------------------
def _move(world, w, agent, action, target):
    _own(world, w, agent, action)
    agent.destination_id = target[1]
    hop(world, w, agent)


def hop(world: RunWorld, w: TickWriter, agent: AgentState) -> None:
    """One room along the shortest path; departures and arrivals are observed."""
    start = agent.location_id
    nxt = world.graph.next_hop(start, agent.destination_id)
    if nxt is None:
        agent.destination_id = None
        w.touch(agent)
        return
    for o in world.occupants(start, exclude=agent.id):
        if not o.asleep:
            w.remember(o, "seen", f"{world.seen_as(o, agent)} leaves toward the {world.room_name(nxt)}.")
    world.move(agent, nxt)
    arrived = nxt == agent.destination_id
    if arrived:
        agent.destination_id = None
    agent.busy_until_tick = w.tick + 1
    room = world.rooms[nxt]
    w.remember(agent, "seen", f"You walk from the {world.room_name(start)} into the {room.name}. {room.description}")
    for o in world.occupants(nxt, exclude=agent.id):
        if not o.asleep:
            w.remember(o, "seen", f"{world.seen_as(o, agent)} arrives from the {world.room_name(start)}.")
    w.event("move", actor=agent, room_id=nxt, text=f"{agent.persona.display_name} → {room.name}",
            data={"from": world.rooms[start].key, "to": room.key, "arrived": arrived})
    w.touch(agent)


# --- interact ------------------------------------------------------------------------------
def _interact(world, w, agent, action, target):
    kind, ident = target
    if kind == "person":
        approach(world, w, agent, world.agents[ident], action.internal_monologue)
        return
    prop = world.props[ident]
    alien = prop.kind == "alien"
    shown = prop.name if world.knows(agent, ITEM_NAMES) else "an indistinct object"
    monologue = f" (You thought: {action.internal_monologue})" if action.internal_monologue else ""
    w.remember(agent, "examined", f"You examine {shown}: {prop.description}{monologue}",
               importance=importance_of("examined", alien=alien))
    w.event("interact", actor=agent, room_id=agent.location_id,
            text=f"{agent.persona.display_name} examines {prop.name}", data={"prop": prop.name, "alien": alien})
    if alien:
        agent.reflection_pending = "an alien object"
    role = None
    if prop.owner_id == agent.persona_id:
        role = NAME_PROP if prop.kind == "name" else FEAR_PROP if prop.kind == "fear" else None
    new_level = rung_after_interact(world.rungs, agent.rung, agent.rung_reached_tick, w.tick, role)
    if new_level is not None:
        climb(world, w, agent, new_level)


def approach(world: RunWorld, w: TickWriter, agent: AgentState, other: AgentState, thought: str = "",
             labels: tuple[str, str] = ("acquaintance", "acquaintance"), forced: str = "") -> None:
    """An interaction with a person: the agent approaches, the other (awake) sees it; both ledgers count
    it (`labels`: how each would first label the other). `forced` names the rule that made it happen
    (the spouse collision), not the agent's choice."""
    w.remember(agent, "action", f"You approach {world.seen_as(agent, other)} and try to catch their eye."
               + (f" (You thought: {thought})" if thought else ""))
    if not other.asleep:
        w.remember(other, "seen", f"{world.seen_as(other, agent)} approaches you, studying your face.")
        w.met(other, agent, labels[1])
    w.met(agent, other, labels[0])
    w.event("interact", actor=agent, room_id=agent.location_id,
            text=f"{agent.persona.display_name} approaches {other.persona.display_name}",
            data={"person": other.persona.key, **({"forced": forced} if forced else {})})


def climb(world: RunWorld, w: TickWriter, agent: AgentState, level: int) -> None:
    persona = agent.persona
    agent.rung, agent.rung_reached_tick = level, w.tick
    spec = rung_spec(world.rungs, level)
    new = newly_known(world.rungs, level)  # what this rung reveals that the one below did not
    if OWN_NAME in new:
        text = f"It comes back to you: your name is {persona.display_name}. {spec.reveals}"
    elif new & {FEAR, SECRET}:
        text = "It comes back to you, and you wish it had not." + (f" You fear this: {persona.fear}" if FEAR in new
                                                                   else "") + \
            (f" Your secret: {persona.secret}" if SECRET in new else "")
    else:
        text = f"It comes back to you. {spec.reveals}"
    w.remember(agent, "rung", text)
    w.event("rung", actor=agent, room_id=agent.location_id, text=f"{persona.display_name} reaches rung {level} ({spec.name})",
            data={"rung": level})


# --- communicate ---------------------------------------------------------------------------
def _communicate(world, w, agent, action, target):
    room = world.rooms[agent.location_id]
    target_agent = world.agents[target[1]] if target else None
    present = [Listener(o.id, o.asleep) for o in world.occupants(room.id)]
    next_door = [
        (world.rooms[rid].ambient_noise, [Listener(o.id, o.asleep) for o in world.occupants(rid)])
        for rid in world.graph.neighbours[room.id]
    ]
    deliveries = route_speech(scale=room.scale, ambient_noise=room.ambient_noise, volume=action.volume,
                              speaker_id=agent.id, target_id=target_agent.id if target_agent else None,
                              present=present, next_door=next_door)
    _own(world, w, agent, action)
    delivered = {}
    for d in deliveries:
        listener = world.agents[d.agent_id]
        speaker = world.seen_as(listener, agent)
        if d.mode == HEARD:
            if target_agent is None:
                to = ""
            elif target_agent.id == listener.id:
                to = " to you"
            else:
                to = f" to {world.seen_as(listener, target_agent)}"
            text = f'{speaker} {_verb(action.volume)}s{to}: "{action.dialogue}"'
            w.remember(listener, "heard", text, importance=importance_of("heard", shout=action.volume == "shout"))
        elif d.mode == OBSERVED:
            with_whom = f" with {world.seen_as(listener, target_agent)}" if target_agent else " to the room"
            w.remember(listener, "observed", f"{speaker} speaks{with_whom}; you cannot make out the words.")
        elif d.mode == WHISPERED:
            w.remember(listener, "observed", f"{speaker} whispered to {world.seen_as(listener, target_agent)}.")
        elif d.mode == SHOUT_NEARBY:
            w.remember(listener, "observed", f"Someone shouted nearby, in the {room.name}.")
        delivered[listener.persona.key] = d.mode
        if d.mode == HEARD and listener is target_agent:
            w.met(listener, agent)
    if target_agent is not None:
        w.met(agent, target_agent)
    w.event("communicate", actor=agent, room_id=room.id, text=action.dialogue,
            data={"volume": action.volume, "target": target_agent.persona.key if target_agent else None,
                  "delivered": delivered})


# --- sleep ---------------------------------------------------------------------------------
def _sleep(world, w, agent, action, target):
    _own(world, w, agent, action)
    fall_asleep(world, w, agent, agent.busy_until_tick)


def fall_asleep(world: RunWorld, w: TickWriter, agent: AgentState, until_tick: int, text: str | None = None) -> None:
    agent.asleep = True
    agent.destination_id = None
    agent.busy_until_tick = until_tick
    agent.slept_since_tick = w.tick
    agent.fatigue = 0
    if text:
        w.remember(agent, "sleep", text)
    for o in world.occupants(agent.location_id, exclude=agent.id):
        if not o.asleep:
            w.remember(o, "seen", f"{world.seen_as(o, agent)} falls asleep.")
    w.event("sleep", actor=agent, room_id=agent.location_id, data={"until": until_tick})
    w.touch(agent)


# --- attack --------------------------------------------------------------------------------
def _attack(world, w, agent, action, target):
    victim = world.agents[target[1]]
    room_id = agent.location_id
    rng = random.Random(f"{world.seed}:{w.tick}:attack:{agent.persona.key}")
    killed = victim.asleep or rng.random() < KILL_CHANCE_AWAKE
    witnesses = [o for o in world.occupants(room_id) if o.id not in (agent.id, victim.id) and not o.asleep]
    _own(world, w, agent, action)
    a_name, v_name = agent.persona.display_name, victim.persona.display_name
    if killed:
        w.remember(victim, "violence", f"{world.seen_as(victim, agent)} strikes you down. Everything goes dark.",
                   importance=10)
        victim.alive, victim.asleep, victim.destination_id = False, False, None
        w.touch(victim)
        w.remember(agent, "violence", f"{world.seen_as(agent, victim)} falls and does not get up.", importance=10)
        for o in witnesses:
            w.remember(o, "violence", f"You saw {world.seen_as(o, agent)} kill {world.seen_as(o, victim)}!",
                       importance=10)
            o.kill_witness = True
            o.reflection_pending = "a killing witnessed"
        w.event("death", actor=victim, room_id=room_id, text=f"{a_name} kills {v_name}",
                data={"killer": agent.persona.key, "witnesses": sorted(o.persona.key for o in witnesses)})
    else:
        if not victim.asleep:
            w.remember(victim, "violence", f"{world.seen_as(victim, agent)} attacks you! You fight them off.",
                       importance=9)
        for o in witnesses:
            w.remember(o, "violence", f"{world.seen_as(o, agent)} attacks {world.seen_as(o, victim)}!", importance=8)
        w.event("attack", actor=agent, room_id=room_id, text=f"{a_name} attacks {v_name} and fails to kill",
                data={"victim": victim.persona.key, "witnesses": sorted(o.persona.key for o in witnesses)})
