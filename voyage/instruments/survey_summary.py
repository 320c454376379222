"""What a survey's answers to one item come to, as numbers: the survey page's summary and the
study's measures (voyage/studies/survey_measures.py). Pure.

- every item: `missing`, the share of the agents asked whose answer is missing (0-1);
- scale, number: `mean` of the answers given;
- choice: the share of the answers given that chose each option; choices: the share of the answers
  given that include each option (they may add up to more than 1);
- text: nothing more (read the answers)."""
from __future__ import annotations

import re
import statistics

from voyage.instruments.questionnaire import CHOICE, CHOICES, NUMBER, SCALE, Item


def option_key(option: str, taken: set[str]) -> str:
    """A column-friendly name for an option (`the nurse` -> `the_nurse`), unique among `taken`."""
    base = re.sub(r"[^a-z0-9]+", "_", option.lower()).strip("_") or "option"
    key, n = base, 2
    while key in taken:
        key, n = f"{base}_{n}", n + 1
    taken.add(key)
    return key


def option_keys(item: Item) -> dict[str, str]:
    taken: set[str] = {"missing", "mean", "n"}
    return {option: option_key(option, taken) for option in item.options}


def summarise(item: Item, values: list) -> dict:
    """{measure key: value} over one item's answers (None for a missing one), in a fixed key order."""
    given = [v for v in values if v is not None]
    out: dict = {"n": len(given)}
    if item.kind in (SCALE, NUMBER):
        out["mean"] = round(statistics.fmean(given), 4) if given else None
    elif item.kind in (CHOICE, CHOICES):
        for option, key in option_keys(item).items():
            chosen = sum(1 for v in given if (v == option if item.kind == CHOICE else option in v))
            out[key] = round(chosen / len(given), 4) if given else None
    out["missing"] = round((len(values) - len(given)) / len(values), 4) if values else None
    return out
