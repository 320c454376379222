"""What a draft may cost, said before the first call: the calls at most (every stage, then every
stage again in each repair round), the tokens about (the prompts as they will be built, each earlier
stage at about its usual length, never past the answer's limit), and the cost at the profile's prices."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from voyage.drafting.author import stage_request
from world.drafting.limits import DraftAsk
from world.drafting.stages import STAGES

CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Projection:
    calls: int  # at most
    prompt_tokens: int  # about, at most
    completion_tokens: int  # at most
    cost: float  # at most, at the profile's prices (0 for the offline policy or a profile without prices)

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self):
        return (f"projected: at most {self.calls} calls, about {self.prompt_tokens} prompt and at most "
                f"{self.completion_tokens} completion tokens, at most ${self.cost:.4f}")


def answer_tokens(ask: DraftAsk, max_tokens: int) -> dict[str, int]:
    """About how long each stage's answer is (for the prompts that show it), at most the answer's limit."""
    about = {"premise": 600, "rooms": 70 * ask.rooms, "personas": 150 * ask.people, "props": 45 * (2 * ask.people + ask.rooms),
             "rungs": 350, "phrasebook": 450}
    return {stage: min(max_tokens, about[stage]) for stage in STAGES}


def project(ask: DraftAsk, max_tokens: int, price_in_per_m: float = 0.0, price_out_per_m: float = 0.0) -> Projection:
    shown = answer_tokens(ask, max_tokens)
    prompts = [sum(len(m["content"]) for m in stage_request(stage, ask, {}).messages) // CHARS_PER_TOKEN
               + sum(shown[s] for s in STAGES[:i]) for i, stage in enumerate(STAGES)]
    rounds = 1 + ask.repair_rounds
    repair_prompt = max(prompts) + sum(shown.values())  # all other stages and its own last answer
    prompt_tokens = sum(prompts) + ask.repair_rounds * len(STAGES) * repair_prompt
    completion_tokens = rounds * len(STAGES) * max_tokens
    cost = (prompt_tokens * price_in_per_m + completion_tokens * price_out_per_m) / 1e6
    return Projection(rounds * len(STAGES), prompt_tokens, completion_tokens, round(cost, 6))


def over_budget(projection: Projection, budget: float) -> str:
    """Why the draft is refused before any call ('' when it is not)."""
    if projection.cost > budget:
        return f"{projection}; over the budget of ${budget:.4f} (raise --budget, or ask for fewer repair rounds)"
    return ""
