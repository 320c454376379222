"""Which model profile answers which call: a run's `profile_routes` map call groups, and listed
agents' actions, to profiles by name; the run's main profile answers whatever is not named. Pure.

    {"memory": "strong", "instruments": "strong", "agent:ismay": "strong"}

Groups: `actions` (an agent's turn), `memory` (compaction, eras, dreams, diary, trust, reflection,
importance, the bulletin: long, rarer calls that decide what every agent remembers),
`instruments` (the researcher's own questions: interviews, surveys), `judge` (a model judging
what the run committed, voyage/judging; `manage.py judge --judge PROFILE` names it for one job) and
`author` (drafting a world from a paragraph: `manage.py scenario draft`, outside any run).
`agent:PERSONA_KEY` gives that agent's actions a profile of its own (it wins over `actions`). Reasoning switches stay per profile
and per purpose: each call goes to its profile with its purpose.

Written on the command line and in a study's axis as `memory=strong;agent:ismay=strong`.
"""
from __future__ import annotations

from voyage.gateway.base import (ACTION, AUTHOR, BULLETIN, COMPACTION, DIARY, DREAM, ERA, IMPORTANCE, INTERVIEW, JUDGE,
                                 REFLECTION, TRUST)

SURVEY = "survey"  # an instrument's purpose (issue 32)
GROUPS = {
    "actions": (ACTION,),
    "memory": (COMPACTION, ERA, DREAM, DIARY, TRUST, REFLECTION, IMPORTANCE, BULLETIN),
    "instruments": (INTERVIEW, SURVEY),
    "judge": (JUDGE,),
    "author": (AUTHOR,),
}
AGENT = "agent:"
GROUP_OF = {purpose: group for group, purposes in GROUPS.items() for purpose in purposes}


def group_of(purpose: str) -> str:
    """The group a call purpose belongs to (an unknown purpose: memory work, the cautious default)."""
    return GROUP_OF.get(purpose, "memory")


def profile_for(routes: dict, purpose: str, agent_key: str | None) -> str | None:
    """The name of the profile that answers this call, or None for the run's main profile."""
    if purpose == ACTION and agent_key and AGENT + agent_key in routes:
        return routes[AGENT + agent_key]
    return routes.get(group_of(purpose))


def route_problems(routes, agent_keys=None, profile_names=None) -> list[str]:
    """What is wrong with a mapping, in words (empty when nothing is). `agent_keys`: the run's cast,
    `profile_names`: the defined profiles (None: not checked)."""
    if not isinstance(routes, dict):
        return [f"a mapping of call group or agent:PERSONA_KEY to a profile name, e.g. {{\"memory\": \"strong\"}}; "
                f"got {routes!r}"]
    problems = []
    for key, name in routes.items():
        if key.startswith(AGENT):
            if not key[len(AGENT):]:
                problems.append(f"{key!r}: name the agent, agent:PERSONA_KEY")
            elif agent_keys is not None and key[len(AGENT):] not in agent_keys:
                problems.append(f"{key!r}: the run has no agent {key[len(AGENT):]!r}")
        elif key not in GROUPS:
            problems.append(f"{key!r} is not a call group ({', '.join(GROUPS)}) nor agent:PERSONA_KEY")
        if not isinstance(name, str) or not name:
            problems.append(f"{key!r}: give a model profile's name, not {name!r}")
        elif profile_names is not None and name not in profile_names:
            problems.append(f"{key!r}: there is no model profile {name!r}")
    return problems


def parse_route(text: str) -> tuple[str, str]:
    """('memory', 'strong') from 'memory=strong'; ValueError naming what is wrong."""
    key, sep, name = text.partition("=")
    if not sep or not key.strip() or not name.strip():
        raise ValueError(f"{text!r}: write GROUP=PROFILE or agent:PERSONA_KEY=PROFILE "
                         f"(groups: {', '.join(GROUPS)})")
    return key.strip(), name.strip()


def parse_routes(text: str) -> dict[str, str]:
    """A mapping from its written form, 'memory=strong;agent:ismay=strong' ('' or 'none': no mapping)."""
    if text.strip() in ("", "none"):
        return {}
    return dict(parse_route(part) for part in text.split(";") if part.strip())


def written(routes: dict) -> str:
    return ";".join(f"{k}={v}" for k, v in sorted(routes.items())) or "none"
