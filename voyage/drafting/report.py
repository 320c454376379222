"""What a draft did, for the reader (`lines()`) and for a script (`json_line()`: the command's
last line). Model output is never trusted: the text here is plain, and every face escapes it."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import yaml

from world.drafting.limits import DraftAsk
from world.rules.scenario_check import Problem


def printable(text: str) -> str:
    """Model text for a terminal: a control character (an escape sequence among them) shown as '?'."""
    return "".join(c if c.isprintable() else "?" for c in text)


@dataclass(frozen=True)
class RepairRound:
    number: int
    stages: tuple[str, ...]  # the stages asked again
    fixed: tuple[str, ...]  # problems of the round before that are gone
    new: tuple[str, ...]  # problems that appeared


@dataclass
class DraftReport:
    ask: DraftAsk
    drafted_by: str  # "scripted" (the offline policy) or the model profile's name
    checker: object = None  # CheckerTrust: planted defects the checker found, on this ask
    text: str = ""  # the draft's file, as last checked
    first_problems: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    rounds: list[RepairRound] = field(default_factory=list)
    failure: str = ""  # the model gave no usable answer, or the budget ran out
    spend: object = None
    day: object = None  # DayFigures of the dry run
    audits: object = None
    dry_run_cpu_s: float = 0.0
    install_asked: bool = False
    installed: bool = False
    install_refused: str = ""
    slug: str = ""

    @property
    def valid(self) -> bool:
        return bool(self.text) and not self.failure and not self.problems

    @property
    def passed(self) -> bool:
        """Valid, and its day ran with clean audits: the only draft that may be installed."""
        return self.valid and self.audits is not None and self.audits.clean

    def draft_slug(self) -> str:
        """The draft's own slug, read off its text (it may not be valid)."""
        return str(self.data().get("slug") or "")

    def data(self) -> dict:
        """The draft's data as its text stands ({} when there is none, or it does not parse)."""
        try:
            data = yaml.safe_load(self.text) if self.text else None
        except yaml.YAMLError:
            data = None
        return data if isinstance(data, dict) else {}

    def counts(self) -> tuple[int, int]:
        data = self.data()
        return (len(data["personas"]) if isinstance(data.get("personas"), list) else 0,
                len(data["rooms"]) if isinstance(data.get("rooms"), list) else 0)

    def drafted(self) -> str:
        """What was drafted, by name: the world, its rooms and its people."""
        data = self.data()

        def names(section: str, key: str) -> str:
            items = data.get(section) if isinstance(data.get(section), list) else []
            return ", ".join(str(i.get(key)) for i in items if isinstance(i, dict)) or "none"
        return printable(f"world: {data.get('name')!s} ({data.get('slug')!s}); rooms: {names('rooms', 'name')}; "
                         f"people: {names('personas', 'display_name')}")

    def lines(self) -> list[str]:
        people, rooms = self.counts()
        out = [f"drafted by: {self.drafted_by}" + (" (scripted: the offline policy, not a language model)"
                                                  if self.drafted_by == "scripted" else ""),
               f"asked: at most {self.ask.people} people, {self.ask.rooms} rooms; drafted: {people} people, {rooms} rooms"]
        if self.text:
            out.append(self.drafted())
        if self.spend is not None:
            s = self.spend
            out.append(f"calls: {s.calls}, tokens: {s.prompt_tokens} prompt + {s.completion_tokens} completion, "
                       f"cost ${s.cost:.4f}")
        if self.failure:
            out.append(f"FAILED: {self.failure}")
        if self.checker is not None:
            out.append(str(self.checker))
        out.append(f"first draft: {len(self.first_problems)} problem(s)")
        out += [f"  {p}" for p in self.first_problems[:40]]
        for r in self.rounds:
            out.append(f"repair round {r.number}: asked {', '.join(r.stages)} again; fixed {len(r.fixed)}, "
                       f"new {len(r.new)}")
            out += [f"  fixed: {x}" for x in r.fixed[:40]] + [f"  new: {x}" for x in r.new[:40]]
        if self.problems:
            out.append(f"still wrong after {len(self.rounds)} repair round(s): {len(self.problems)} problem(s)")
            out += [f"  {p}" for p in self.problems]
        if self.day is not None:
            d = self.day
            out.append(f"dry run (one offline day, in a scratch database; {self.dry_run_cpu_s} s CPU): {d.actions} actions, "
                       f"{d.action_fails} ACTION_FAILs, rungs reached {d.rungs_reached}, rooms visited "
                       f"{d.rooms_visited}/{d.rooms}, deaths {d.deaths}")
            a = self.audits
            out.append(f"audits: privacy {a.leaks} leaks ({a.whispers_checked} whispers, {a.thoughts_checked} "
                       f"thoughts, {a.prompts_checked} rung-0 prompts checked); ladder {a.ladder_breaks} breaks "
                       f"({a.rungs_checked} climbs); voice {a.foreign_words} foreign words "
                       f"{list(a.foreign)} ({a.texts_checked} texts)")
        if self.install_asked:
            out.append(f"installed as {self.slug!r}" if self.installed else
                       "NOT installed: " + (self.install_refused or "the draft did not pass"))
        return out

    def json_line(self) -> str:
        people, rooms = self.counts()
        return json.dumps({
            "valid": self.valid, "installed": self.installed, "slug": self.slug or self.draft_slug(),
            "people": people, "rooms": rooms, "repair_rounds": len(self.rounds),
            "problems_left": [{"path": p.path, "line": p.line, "rule": p.rule, "message": p.message}
                              for p in self.problems],
            "dry_run": self.day.as_dict() if self.day is not None else None,
            "audits": self.audits.as_dict() if self.audits is not None else None,
            "drafted_by": self.drafted_by, "failure": self.failure or None,
            "checker": self.checker.as_dict() if self.checker is not None else None,
        }, ensure_ascii=False)
