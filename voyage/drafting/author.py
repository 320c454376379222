"""Asking the model for one stage of a world, or for its repair; the answer, validated at the edge."""
from __future__ import annotations

import json
from dataclasses import dataclass

from voyage.gateway.base import AUTHOR, Gateway, ModelAnswer, ModelRequest
from voyage.gateway.offline_author import DraftHints
from world.drafting.limits import DraftAsk
from world.drafting.stages import GUIDE, STAGES, stage_schema
from world.rules.scenario_check import Problem

SYSTEM = ("You draft one part of a world for Voyage, a simulation of people who each wake in a life that is not "
          "their own, in a place the storyteller describes. Write in the storyteller's setting and words. Answer "
          "with one JSON object only, keeping the JSON schema given: no code fence, nothing before or after it.")
REPAIR = ("The world's checker read the whole draft and found the problems below in this stage (each with its "
          "line in the file, its key path and the rule it breaks). Fix every one and answer with this stage whole "
          "again, in the same JSON schema.")


class DraftFailed(Exception):
    """The model gave no usable answer (broken JSON, a refusal, a timeout) or the budget ran out."""


@dataclass
class Spend:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    def add(self, answer: ModelAnswer) -> None:
        self.calls += 1
        self.prompt_tokens += answer.prompt_tokens
        self.completion_tokens += answer.completion_tokens
        self.cost += answer.cost


def stage_request(stage: str, ask: DraftAsk, answers: dict[str, dict],
                  repair: list[Problem] | None = None) -> ModelRequest:
    """The request for a stage: the paragraph, the sizes, the stages it must agree with (those
    before it; in a repair, all the others), its guide and schema, and in a repair its last answer
    and the checker's problems."""
    shown = {s: answers[s] for s in STAGES if s in answers and s != stage
             and (repair is not None or STAGES.index(s) < STAGES.index(stage))}
    earlier = {s: answers[s] for s in STAGES[:STAGES.index(stage)] if s in answers}
    schema = stage_schema(stage, earlier)
    parts = [f"The storyteller's paragraph:\n{ask.paragraph.strip()}",
             f"The world holds at most {ask.people} people and at most {ask.rooms} rooms."]
    if shown:
        parts.append("The other stages of this draft (keep their keys and names exactly):\n"
                     + json.dumps(shown, ensure_ascii=False))
    parts.append(f"Now the stage {stage!r}. " + GUIDE[stage].format(people=ask.people, rooms=ask.rooms, me="{me}"))
    parts.append("Answer with a JSON object under this JSON schema:\n" + json.dumps(schema))
    if repair is not None:
        parts.append("Your last answer for this stage:\n" + json.dumps(answers.get(stage), ensure_ascii=False))
        parts.append(REPAIR + "\n" + "\n".join(f"- {p}" for p in repair))
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]
    return ModelRequest(purpose=AUTHOR, messages=messages, tick=0, hints=DraftHints(stage, ask), schema=schema)


def ask_stage(gateway: Gateway, request: ModelRequest, spend: Spend) -> dict:
    """The stage's answer as a JSON object; DraftFailed naming the stage and what came back otherwise."""
    answer = gateway.complete(request)
    spend.add(answer)
    stage = request.hints.stage
    if answer.failed:
        raise DraftFailed(f"stage {stage!r}: the model gave no answer ({answer.error or 'nothing came back'})")
    try:
        value = json.loads(answer.text)
    except ValueError as exc:
        raise DraftFailed(f"stage {stage!r}: the answer is not JSON ({exc}); it begins {answer.text[:120]!r}") from None
    if not isinstance(value, dict):
        raise DraftFailed(f"stage {stage!r}: the answer is JSON but not an object; it begins {answer.text[:120]!r}")
    return value
