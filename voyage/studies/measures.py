"""Measures, declared once (mesa's reporters): each is a function of one run and one day that returns
a value, or a dict of values (one column each, named `<measure>_<key>`). Adding a measure is adding
one decorated function here; the results table, the comparison page and the README's list all read
this registry. The data comes from `tables.Tables`, loaded for all the runs at once.

`per="day"`: the value for that day alone (counts, rates), or the state at the end of that day
(rungs, trust), as its doc says. `per="run"`: one value for the whole run, repeated on each of its rows.
"""
from __future__ import annotations

import statistics

from voyage.studies import networks
from voyage.studies.measure_registry import REGISTRY, Measure, measure  # noqa: F401 (Measure: for its readers)
from voyage.studies.tables import RunInfo, Tables
from voyage.studies.validity_measures import validity_values

VOLUMES = ("whisper", "normal", "shout")


def _ratio(part, whole, digits=4):
    return round(part / whole, digits) if whole else None


# --- the ladder ------------------------------------------------------------------------------
def _reached_by_end_of(t: Tables, run: RunInfo, day: int) -> dict[int, int]:
    """How many agents had reached each rung (at least once) by the end of the day."""
    reached = [(tick, level) for tick, level in t.rungs_reached.get(run.id, ()) if run.day_of(tick) <= day]
    return {level: sum(1 for _, lv in reached if lv == level) for level in t.rung_levels}


@measure("agents_rung", "agents on each rung at the end of the day (rung k counts agents whose highest rung "
                        "is k; all agents, living or dead)")
def agents_rung(t: Tables, run: RunInfo, day: int) -> dict:
    reached_at_least = _reached_by_end_of(t, run, day)  # agents that reached level k (and maybe more)
    levels = t.rung_levels
    out = {}
    for i, level in enumerate(levels):
        at_least = run.agents if level == levels[0] else reached_at_least[level]
        above = reached_at_least[levels[i + 1]] if i + 1 < len(levels) else 0
        out[str(level)] = at_least - above
    return out


@measure("first_tick_rung", "median over the agents that reached rung k by the end of the day of the tick "
                            "at which each first reached it (empty when none has; rung 0 is every agent's at tick 0)")
def first_tick_rung(t: Tables, run: RunInfo, day: int) -> dict:
    ticks: dict[int, list[int]] = {level: [] for level in t.rung_levels if level > 0}
    for tick, level in t.rungs_reached.get(run.id, ()):
        if run.day_of(tick) <= day and level in ticks:
            ticks[level].append(tick)
    return {str(level): (float(statistics.median(v)) if v else None) for level, v in ticks.items()}


# --- life and death --------------------------------------------------------------------------
@measure("deaths", "agents killed that day (death events)")
def deaths(t: Tables, run: RunInfo, day: int) -> int:
    return t.event_counts.get((run.id, day), {}).get("death", 0)


@measure("action_fail_rate", "share of that day's action calls that ended in ACTION_FAIL (malformed, forbidden, "
                             "unanswered or impossible), 0-1")
def action_fail_rate(t: Tables, run: RunInfo, day: int) -> float | None:
    row = t.calls.get((run.id, day), {})
    return _ratio(row.get("action_fails", 0), row.get("actions", 0))


# --- speech ----------------------------------------------------------------------------------
@measure("words", "words spoken that day (dialogue of successful communicate actions, split on whitespace), "
                  "by volume: whisper, normal, shout")
def words(t: Tables, run: RunInfo, day: int) -> dict:
    out = dict.fromkeys(VOLUMES, 0)
    for volume, n, _ in t.speech.get((run.id, day), ()):
        out[volume] = out.get(volume, 0) + n
    return out


@measure("speech_target_only_share", "of that day's utterances addressed to someone, the share whose words "
                                     "were HEARD by their target and by nobody else (bystanders may have seen "
                                     "that talk happened), 0-1")
def speech_target_only_share(t: Tables, run: RunInfo, day: int) -> float | None:
    targeted = [only for _, _, only in t.speech.get((run.id, day), ()) if only is not None]
    return _ratio(sum(targeted), len(targeted))


# --- trust -----------------------------------------------------------------------------------
def _ledger_at_end_of(t: Tables, run: RunInfo, day: int) -> list[tuple[float, str]]:
    """(score, label) of every trust-ledger entry as it stood at the end of the day."""
    latest: dict[int, tuple[float, str]] = {}
    for tick, entry, score, label in t.trust.get(run.id, ()):  # in tick order
        if run.day_of(tick) > day:
            break
        latest[entry] = (score, label)
    return list(latest.values())


@measure("trust_mean", "mean trust score (-1 to 1) over every trust-ledger entry at the end of the day")
def trust_mean(t: Tables, run: RunInfo, day: int) -> float | None:
    ledger = _ledger_at_end_of(t, run, day)
    return round(statistics.fmean(s for s, _ in ledger), 4) if ledger else None


@measure("trust_suspect_share", 'share of trust-ledger entries labelled "suspect" at the end of the day, 0-1')
def trust_suspect_share(t: Tables, run: RunInfo, day: int) -> float | None:
    ledger = _ledger_at_end_of(t, run, day)
    return _ratio(sum(1 for _, label in ledger if label.lower() == "suspect"), len(ledger))


@measure("trust_polarisation", "population standard deviation of the trust scores at the end of the day: 0 when "
                               "everyone is judged alike, 1 when half the judgements are +1 and half -1")
def trust_polarisation(t: Tables, run: RunInfo, day: int) -> float | None:
    ledger = _ledger_at_end_of(t, run, day)
    return round(statistics.pstdev(s for s, _ in ledger), 4) if ledger else None


# --- the society's networks (voyage/studies/networks.py) --------------------------------------
def speech_graph_of(t: Tables, run: RunInfo, day: int):
    return networks.speech_graph(t.agent_keys.get(run.id, ()), t.heard.get((run.id, day), {}))


def trust_graph_of(t: Tables, run: RunInfo, day: int):
    scores = {}
    for tick, holder, judged, score in t.trust_ties.get(run.id, ()):  # in tick order: the last one stands
        if run.day_of(tick) > day:
            break
        scores[(holder, judged)] = score
    return networks.trust_graph(t.agent_keys.get(run.id, ()), scores)


NETWORK_DOC = ("density (edges / possible edges), reciprocity (share of edges returned), transitivity (closed "
               "triads / connected triples, undirected), largest_component (share of agents in the largest weakly "
               "connected component), centralisation (Freeman's degree centralisation, undirected), modularity "
               "(of a Louvain partition, seeded), communities (of two or more agents)")


@measure("speech_net", "the day's speech graph (speaker -> listener who HEARD the words, weighted by utterances; "
                       "every agent a node): " + NETWORK_DOC)
def speech_net(t: Tables, run: RunInfo, day: int) -> dict:
    return networks.network_measures(speech_graph_of(t, run, day))


@measure("trust_net", "the trust graph's positive ties (holder -> judged, trust score above 0 in the ledger at the "
                      "end of the day; every agent a node): " + NETWORK_DOC)
def trust_net(t: Tables, run: RunInfo, day: int) -> dict:
    return networks.network_measures(networks.positive_ties(trust_graph_of(t, run, day)))


# --- memory writing --------------------------------------------------------------------------
@measure("written", "memory written that day: summaries (compactions), eras (era summaries folding older "
                    "ones), dreams, diary_entries")
def written(t: Tables, run: RunInfo, day: int) -> dict:
    row = t.writing.get((run.id, day), {})
    return {k: row.get(k, 0) for k in ("summaries", "eras", "dreams", "diary_entries")}


# --- the model's bill ------------------------------------------------------------------------
@measure("calls", "model calls made that day, every purpose")
def calls(t: Tables, run: RunInfo, day: int) -> int:
    return int(t.calls.get((run.id, day), {}).get("calls", 0))


@measure("tokens", "prompt + completion tokens of that day's calls")
def tokens(t: Tables, run: RunInfo, day: int) -> int:
    return int(t.calls.get((run.id, day), {}).get("tokens", 0))


@measure("cost", "cost of that day's calls, at the profile's prices")
def cost(t: Tables, run: RunInfo, day: int) -> float:
    return round(t.calls.get((run.id, day), {}).get("cost", 0.0), 6)


@measure("retries", "attempts beyond the first, over that day's calls")
def retries(t: Tables, run: RunInfo, day: int) -> int:
    return int(t.calls.get((run.id, day), {}).get("retries", 0))


@measure("wall_s", "seconds from the run's start (queued by its study, or created) to its last committed tick",
         per="run")
def wall_s(t: Tables, run: RunInfo, day: int) -> float | None:
    if run.started_at is None or run.last_tick_at is None:
        return None
    return round((run.last_tick_at - run.started_at).total_seconds(), 3)


# --- surveys ---------------------------------------------------------------------------------
@measure("survey", "the study's surveys (--survey FILE@TICK), per item of the survey at tick T: t<T>_<item>_mean "
                   "(scales, numbers), t<T>_<item>_<option> (share of the answers choosing it), t<T>_<item>_missing "
                   "(share of the agents asked with no valid answer); empty until the run has finished and been "
                   "surveyed", per="run")
def survey(t: Tables, run: RunInfo, day: int) -> dict:
    return survey_values(t, run.id)


@measure("validity", "the study's standard instruments (--instrument NAME@TICK), per instrument at tick T: "
                     "t<T>_<D>_score (mean domain score over the agents), t<T>_<D>_alpha (Cronbach's alpha across "
                     "them), t<T>_<item>_tv and t<T>_<item>_wasserstein (distance of the answers to people's "
                     "published shares); empty until the run has finished and been asked", per="run")
def validity(t: Tables, run: RunInfo, day: int) -> dict:
    return validity_values(t, run.id)


@measure("judge", "the study's judging (--judge RUBRIC@DAY), per rubric judged on day D: "
                  "d<D>_<dimension> (mean score over the day's judged agents), with RUBRIC@DAY:scenes=N "
                  "d<D>_scene_<dimension> (mean over the day's judged scenes), d<D>_overall (the dimensions' mean, "
                  "by their weights), d<D>_missing (share of judgements missing), d<D>_verdict (the judge's "
                  "verdict on itself: reliable, doubtful, unreliable; carried with every comparison of the day's "
                  "scores); empty until the run has finished and been judged", per="run")
def judge(t: Tables, run: RunInfo, day: int) -> dict:
    return judge_values(t, run.id)


# --- evaluating ------------------------------------------------------------------------------
def evaluate(run_ids, measures: dict[str, Measure] | None = None) -> list[dict]:
    """One row per (run, day) of every run that has ticked: run_id, day, then each measure's
    column(s). Runs that have not started have no rows."""
    measures = REGISTRY if measures is None else measures
    t = Tables(run_ids)
    rows = []
    for run_id in run_ids:
        run = t.runs.get(run_id)
        if run is None or run.tick == 0:
            continue
        for day in range(1, run.days + 1):
            row = {"run_id": run_id, "day": day}
            for m in measures.values():
                value = m.func(t, run, day)
                if isinstance(value, dict):
                    row.update({f"{m.name}_{k}": v for k, v in value.items()})
                else:
                    row[m.name] = value
            rows.append(row)
    return rows


def columns(rows: list[dict]) -> list[str]:
    """Every measure column the rows carry, in registry order (a dict-valued measure's keys as met)."""
    seen: dict[str, None] = {}
    for row in rows:
        for k in row:
            seen.setdefault(k, None)
    return [k for k in seen if k not in ("run_id", "day")]


from voyage.studies import health_measures  # noqa: E402,F401  registers the model-health measures

from voyage.studies.judge_measures import judge_values  # noqa: E402
from voyage.studies.survey_measures import survey_values