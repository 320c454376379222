"""Benchmark: the network measures of one day of a big world (issue 32: under 10 s of CPU for a
2,000-agent day).

On a scratch database of its own, in a process of its own: grow the scenario to N people (`scenario
grow`), import it, run its first day (simultaneous, offline model, memory jobs inline, as `bench
scale` does), then time — CPU time of this process, the database server's not in it — loading what
the networks read for that day (the speaker and HEARD listeners of every utterance, the trust
ledger's history, the agents) and computing the speech and trust measures of every declared network
measure (voyage/studies/networks.py, Louvain included).

Prints agents, ticks, utterances, the two graphs' edges, load_cpu_s, measures_cpu_s, cpu_s (the two
added), the measures themselves, run_cpu_s (the day's simulation, for scale), and the load average.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from voyage.bench.fleet import MANAGE, ROOT, ScratchDB
from voyage.engine.runner import advance, create_run
from voyage.models import Event, Run
from voyage.studies.measures import speech_graph_of, trust_graph_of
from voyage.studies.networks import network_measures, positive_ties
from voyage.studies.tables import Tables
from world.models import Scenario
from world.scenarios.files import data_yaml, import_yaml, scenario_data
from world.scenarios.grow import grow


def outer(scenario: str, agents: int, ticks: int) -> dict:
    with ScratchDB("sqlite") as db:
        done = subprocess.run(MANAGE + ["bench", "networks", "--inner", "--scenario", scenario, "--agents",
                                        str(agents), "--ticks", str(ticks)], env=db.env(), cwd=ROOT,
                              capture_output=True, text=True, timeout=4 * 3600)
        if done.returncode != 0:
            raise RuntimeError(f"bench networks failed:\n{done.stderr[-4000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {"bench": "networks", "scenario": scenario, **figures, "cpus": os.cpu_count(),
            "load_1m_after": round(os.getloadavg()[0], 2)}


def inner(scenario: str, agents: int, ticks: int) -> dict:
    grown = import_yaml(data_yaml(grow(scenario_data(Scenario.objects.get(slug=scenario)), agents)))
    run = create_run(grown, seed=1912, schedule=Run.SIMULTANEOUS, target_ticks=ticks)
    began = time.process_time()
    advance(run, ticks, memory_inline=True)
    run_cpu = time.process_time() - began

    began = time.process_time()
    t = Tables([run.pk])
    info = t.runs[run.pk]
    speech, trust = speech_graph_of(t, info, 1), trust_graph_of(t, info, 1)
    loaded = time.process_time()
    measured = {"speech_net": network_measures(speech), "trust_net": network_measures(positive_ties(trust))}
    done = time.process_time()
    return {
        "agents": agents, "ticks": ticks,
        "utterances": Event.objects.filter(run=run, kind="communicate").count(),
        "speech_edges": speech.number_of_edges(), "trust_edges": trust.number_of_edges(),
        "load_cpu_s": round(loaded - began, 3), "measures_cpu_s": round(done - loaded, 3),
        "cpu_s": round(done - began, 3), "measures": measured, "run_cpu_s": round(run_cpu, 1),
    }
