"""Each declared measure on a small hand-built event log of a two-day run with three agents, whose
answers are worked out by hand in the comments."""
from datetime import date, timedelta
from decimal import Decimal

import pytest

from memories.models import DiaryEntry, Dream, MemorySummary, TrustEntry, TrustHistory
from voyage.engine.runner import create_run
from voyage.models import Event, LLMCall, Run
from voyage.studies.measures import REGISTRY, columns, evaluate
from voyage.studies.tables import RunInfo
from world.models import Scenario

pytestmark = pytest.mark.django_db
DAY = 480


@pytest.fixture
def log():
    scenario = Scenario.objects.get(slug="1912")
    personas = list(scenario.personas.order_by("key")[:3])
    run = create_run(scenario, personas=personas, target_ticks=2 * DAY)
    a, b, c = run.agents.order_by("persona__key")
    seq = iter(range(1, 1000))

    def event(tick, kind, actor=None, text="", **data):
        Event.objects.create(run=run, tick=tick, seq=next(seq), kind=kind, actor=actor, text=text, data=data)

    # the ladder: a reaches rung 1 at tick 10 and rung 2 at 500 (day 2); b rung 1 at 30; c never climbs
    event(10, "rung", a, rung=1)
    event(30, "rung", b, rung=1)
    event(500, "rung", a, rung=2)
    # one death, on day 2
    event(700, "death", c)
    # speech on day 1: whisper 1 word, normal 3 + 2 words, shout 3 words
    ka, kb, kc = (x.persona.key for x in (a, b, c))
    event(5, "communicate", a, "hello there friend", volume="normal", target=kb, delivered={kb: "HEARD"})
    event(6, "communicate", b, "psst", volume="whisper", target=ka, delivered={ka: "HEARD", kc: "WHISPERED"})
    event(7, "communicate", c, "LOOK OUT NOW", volume="shout", target=None, delivered={ka: "HEARD", kb: "HEARD"})
    event(8, "communicate", a, "we talk", volume="normal", target=kb, delivered={kb: "HEARD", kc: "HEARD"})
    # model calls on day 1: 4 actions, 1 an ACTION_FAIL; a trust call that took 3 attempts
    for i, outcome in enumerate(["ok", "ok", "action_fail", "ok"]):
        LLMCall.objects.create(run=run, agent=a, tick=i, purpose="action", prompt_z=b"", outcome=outcome,
                               prompt_tokens=100, completion_tokens=10, cost=Decimal("0.001"))
    LLMCall.objects.create(run=run, agent=b, tick=319, purpose="trust", prompt_z=b"", attempts=3,
                           prompt_tokens=500, completion_tokens=50, cost=Decimal("0.0025"))
    # trust: a→b 0 then +0.5 ally (day 1); b→a -0.5 suspect (day 1); a→c -1 suspect (day 2)
    ab = TrustEntry.objects.create(run=run, agent=a, other=b, first_met_tick=10, updated_tick=300)
    ba = TrustEntry.objects.create(run=run, agent=b, other=a, first_met_tick=20, updated_tick=20)
    ac = TrustEntry.objects.create(run=run, agent=a, other=c, first_met_tick=600, updated_tick=600)
    for entry, tick, score, label in [(ab, 10, 0.0, "acquaintance"), (ab, 300, 0.5, "ally"),
                                      (ba, 20, -0.5, "suspect"), (ac, 600, -1.0, "Suspect")]:
        TrustHistory.objects.create(entry=entry, tick=tick, score=score, label=label)
    # writing: a summary on day 1, an era on day 2, a dream on day 1, diary entries on both days
    MemorySummary.objects.create(run=run, agent=a, level=0, first_row=1, last_row=5, row_count=5, tick=100, text="s")
    MemorySummary.objects.create(run=run, agent=a, level=1, first_row=1, last_row=9, row_count=9, tick=900, text="e")
    Dream.objects.create(run=run, agent=b, tick=319, identity="i", places="p", people="q")
    room = a.location
    DiaryEntry.objects.create(run=run, agent=a, date=date(1912, 4, 10), day=1, tick=319, mood="m", location=room,
                              text="d")
    DiaryEntry.objects.create(run=run, agent=a, date=date(1912, 4, 11), day=2, tick=799, mood="m", location=room,
                              text="d")
    # the run reached its end; its last tick committed 12.5 s after it was created
    Run.objects.filter(pk=run.pk).update(tick=2 * DAY, heartbeat_at=run.created_at + timedelta(seconds=12.5))
    rows = {row["day"]: row for row in evaluate([run.pk])}
    assert set(rows) == {1, 2}
    return rows


def test_agents_per_rung_at_the_end_of_each_day(log):
    assert [log[1][f"agents_rung_{k}"] for k in range(3)] == [1, 2, 0]
    assert [log[2][f"agents_rung_{k}"] for k in range(3)] == [1, 1, 1]


def test_first_tick_of_each_rung_is_the_median_over_agents(log):
    assert (log[1]["first_tick_rung_1"], log[1]["first_tick_rung_2"]) == (20, None)
    assert (log[2]["first_tick_rung_1"], log[2]["first_tick_rung_2"]) == (20, 500)


def test_deaths_per_day(log):
    assert (log[1]["deaths"], log[2]["deaths"]) == (0, 1)


def test_action_fail_rate(log):
    assert log[1]["action_fail_rate"] == 0.25
    assert log[2]["action_fail_rate"] is None  # no action calls: no rate, not zero


def test_words_by_volume(log):
    assert (log[1]["words_whisper"], log[1]["words_normal"], log[1]["words_shout"]) == (1, 5, 3)
    assert (log[2]["words_whisper"], log[2]["words_normal"], log[2]["words_shout"]) == (0, 0, 0)


def test_share_of_speech_that_reached_only_its_target(log):
    # three addressed utterances; the whisper (others saw only that it passed) and the first normal
    # one reached only their targets; the second was heard by a bystander too; the shout had no target
    assert log[1]["speech_target_only_share"] == round(2 / 3, 4)
    assert log[2]["speech_target_only_share"] is None


def test_trust_mean(log):
    assert log[1]["trust_mean"] == 0.0  # +0.5 and -0.5
    assert log[2]["trust_mean"] == round((0.5 - 0.5 - 1.0) / 3, 4)


def test_trust_suspect_share(log):
    assert log[1]["trust_suspect_share"] == 0.5
    assert log[2]["trust_suspect_share"] == round(2 / 3, 4)  # the label is matched whatever its case


def test_trust_polarisation(log):
    assert log[1]["trust_polarisation"] == 0.5
    assert log[2]["trust_polarisation"] == 0.6236  # pstdev(0.5, -0.5, -1.0)


def test_summaries_eras_dreams_and_diary_written(log):
    assert [log[1][f"written_{k}"] for k in ("summaries", "eras", "dreams", "diary_entries")] == [1, 0, 1, 1]
    assert [log[2][f"written_{k}"] for k in ("summaries", "eras", "dreams", "diary_entries")] == [0, 1, 0, 1]


def test_calls_tokens_cost_retries(log):
    assert (log[1]["calls"], log[1]["tokens"], log[1]["retries"]) == (5, 4 * 110 + 550, 2)
    assert log[1]["cost"] == 0.0065
    assert (log[2]["calls"], log[2]["tokens"], log[2]["cost"], log[2]["retries"]) == (0, 0, 0.0, 0)


def test_wall_time_is_the_runs_and_repeated_on_each_day(log):
    assert log[1]["wall_s"] == log[2]["wall_s"] == 12.5


def net(row, prefix):
    return tuple(row[f"{prefix}_{k}"] for k in ("density", "reciprocity", "transitivity", "largest_component",
                                                 "centralisation", "modularity", "communities"))


def test_the_speech_network_of_each_day(log):
    # day 1, HEARD: a->b twice, b->a, c->a and c->b (the shout), a->c: 5 of 6 edges; 4 of them returned
    # (a<->b, a<->c); the triangle is closed; everyone has two ties; Louvain keeps the three together
    assert net(log[1], "speech_net") == (0.8333, 0.8, 1.0, 1.0, 0.0, 0.0, 1)
    # day 2: nobody spoke: three isolates
    assert net(log[2], "speech_net") == (0.0, None, None, 0.3333, 0.0, None, None)


def test_the_trust_network_of_each_day(log):
    # day 1: a trusts b (+0.5), b suspects a (-0.5): one positive tie of six, a and b joined, c alone;
    # degrees 1, 1, 0: centralisation (0 + 0 + 1) / (2 x 1); the pair as one community: Q = 0
    assert net(log[1], "trust_net") == (0.1667, 0.0, 0.0, 0.6667, 0.5, 0.0, 1)
    # day 2: a suspects c too (-1): still the one positive tie
    assert net(log[2], "trust_net") == net(log[1], "trust_net")


def test_every_registered_measure_has_a_column_and_a_test():
    tested = {"speech_net", "trust_net", "agents_rung", "first_tick_rung", "deaths", "action_fail_rate", "words", "speech_target_only_share",
              "trust_mean", "trust_suspect_share", "trust_polarisation", "written", "calls", "tokens", "cost",
              "retries", "wall_s",
              # the model-health measures: tests/health/test_model_health_measures.py
              "example_copy_share", "repeat_share", "distinct_dialogue_share", "action_fail_reasons",
              "action_evenness", "ignored_field_share",
              "survey",  # survey: tests/studies/test_study_surveys.py
              "validity",  # validity: tests/studies/test_study_validity.py
              "judge"}  # judge: tests/studies/test_study_judging.py
    assert set(REGISTRY) == tested, "a new measure needs a test here"


def test_days_clamp_to_the_runs_last_day():
    one_day = RunInfo(1, tick=DAY, agents=3, started_at=None, last_tick_at=None)
    assert one_day.days == 1
    assert one_day.day_of(0) == 1 and one_day.day_of(DAY - 1) == 1
    assert one_day.day_of(DAY) == 1  # the dawn bulletin of a one-day run belongs to its only day
    two_days = RunInfo(1, tick=DAY + 1, agents=3, started_at=None, last_tick_at=None)
    assert two_days.days == 2 and two_days.day_of(DAY) == 2


def test_a_run_that_has_not_ticked_has_no_rows():
    run = create_run(Scenario.objects.get(slug="1912"), target_ticks=10)
    assert evaluate([run.pk]) == []
    assert columns([]) == []


def test_the_docs_define_every_measure():
    from pathlib import Path

    studies = (Path(__file__).resolve().parents[2] / "docs" / "studies.md").read_text()
    section = studies[studies.index("| measure | definition |"):]
    for name in REGISTRY:
        assert f"`{name}" in section, f"docs/studies.md's table of measures does not define {name}"
