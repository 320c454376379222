"""Benchmark: a survey of every agent of an offline run (33 on the 1912 scenario) with a 10-item
questionnaire of every kind, in a scratch database of its own (as `bench worker`). The run is
advanced first (memory jobs inline), so the agents have hot windows, summaries and trust ledgers
to be read as of the survey's tick.

Prints agents, items, answers, missing, cpu_s (this process's CPU time for take_survey: building
every agent's mind at T and its prompt, the offline answers, parsing and storing them), wall_s, the
best of `repeats`, and the machine's cpus and load average. The target (issue 32): cpu_s under 2."""
from __future__ import annotations

import os
import time
from voyage.bench.fleet import manage_json
from voyage.bench.worker import scratch_like_settings
from voyage.engine.runner import advance, create_run
from voyage.instruments.questionnaire import read_questionnaire
from voyage.instruments.surveys import take_survey
from world.models import Scenario

QUESTIONNAIRE = """\
title: Life aboard
items:
  - {id: safe, text: How safe do you feel aboard?, kind: scale, scale: {min: 1, max: 7, min_label: not at all, max_label: completely}}
  - {id: trust_others, text: How far do you trust the others?, kind: scale, scale: {min: 1, max: 5, min_label: not at all, max_label: fully}}
  - {id: calm, text: How calm are you tonight?, kind: scale, scale: {min: 0, max: 10}}
  - {id: leader, text: Who speaks for the passengers?, kind: choice, options: [nobody, the captain, the purser, a passenger]}
  - {id: deck, text: Where would you go in trouble?, kind: choice, options: [the boat deck, my cabin, the lounge]}
  - {id: worries, text: What worries you?, kind: choices, options: [the ice, money, the others, my past]}
  - {id: wants, text: What do you want most?, kind: choices, options: [to arrive, to be left alone, the truth]}
  - {id: days, text: How many days have you been at sea?, kind: number, range: {min: 0, max: 30}}
  - {id: friends, text: How many friends have you made?, kind: number, range: {min: 0, max: 40}}
  - {id: wish, text: What do you wish for?, kind: text}
"""


def outer(ticks: int, repeats: int) -> dict:
    with scratch_like_settings() as db:
        figures = manage_json(db.env(), "bench", "survey", "--inner", "--ticks", str(ticks), "--repeats",
                              str(repeats))[-1]
    figures["database"] = db.kind
    return figures


def inner(ticks: int, repeats: int) -> dict:
    """On the scratch database (the caller set DATABASE_URL)."""
    from django_q.conf import Conf

    sync, Conf.SYNC = Conf.SYNC, True  # memory jobs inline, as the batch runner runs them
    try:
        run = create_run(Scenario.objects.get(slug="1912"), seed=1912, target_ticks=ticks)
        advance(run, ticks, memory_inline=True)
    finally:
        Conf.SYNC = sync
    run.refresh_from_db()
    questionnaire = read_questionnaire(QUESTIONNAIRE)
    best = None
    for _ in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        survey = take_survey(run, questionnaire, ticks)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        if best is None or cpu < best[0]:
            best = (cpu, wall, survey)
    cpu, wall, survey = best
    return {
        "bench": "survey",
        "ticks": ticks,
        "agents": survey.agents,
        "items": len(questionnaire.items),
        "answers": survey.answers.count(),
        "missing": survey.answers.exclude(missing_reason="").count(),
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "repeats": repeats,
        "cpus": os.cpu_count(),
        "load_1m_after": round(os.getloadavg()[0], 2),
    }
