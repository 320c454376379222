"""Evidence packets are built from what the run committed, the same every time, and bounded; each
planted defect is really in its altered copy and not in the original."""
from __future__ import annotations

import random

import pytest

from memories.models import Memory
from voyage.gateway.offline_judge import spoken
from voyage.judging import defects
from voyage.judging.job import plan
from voyage.judging.packets import PACKET_TOKENS, PacketError, bounded, day_packets, tokens_of
from voyage.judging.rubric import load_rubric
from world.models import AgentState

pytestmark = pytest.mark.django_db


def test_packets_are_deterministic_and_bounded(judged_run):
    one, two = day_packets(judged_run, 1), day_packets(judged_run, 1)
    assert one == two and len(one) == AgentState.objects.filter(run=judged_run).count()
    assert all(tokens_of(p) <= PACKET_TOKENS for p in one)
    assert any(p["cut"].startswith("cut to 4500 tokens") for p in one)  # a busy day does not fit whole


def test_every_prompt_stays_under_6000_tokens(judged_run):
    packets = day_packets(judged_run, 1)
    asks = plan(judged_run, load_rubric(), packets, 1, seed=1, repeat_share=0.2, planted_share=0.3, pairs=12)
    assert {a.mode for a in asks} == {"score", "pair"}
    assert max(tokens_of("".join(m["content"] for m in a.messages)) for a in asks) <= 6000


def test_a_packet_holds_the_agents_own_rows_of_that_day(judged_run):
    packet = day_packets(judged_run, 1, ["harold_ashcombe"])[0]
    ids = [int(item["id"][1:]) for item in packet["items"]]
    rows = Memory.objects.filter(id__in=ids)
    assert rows.count() == len(ids) and {r.agent.persona.key for r in rows} == {"harold_ashcombe"}
    assert ids == sorted(ids)
    assert packet["agent"]["history"].startswith("You are Harold Ashcombe")
    assert "smartphone" in packet["world"]["foreign_words"]


def test_bounded_thins_evenly_and_says_so():
    rows = [{"id": f"m{i}", "own": i % 3 == 0, "text": "x" * 200} for i in range(1, 301)]
    packet = bounded({"id": "p", "recalled": []}, rows, 2000)
    assert tokens_of(packet) <= 2000
    kept = [int(r["id"][1:]) for r in packet["items"]]
    assert kept == sorted(kept) and kept[0] < 20 and kept[-1] > 280  # spread over the day, not its morning
    assert "own rows" in packet["cut"] and "thinned evenly" in packet["cut"]


def test_a_bad_day_or_agent_is_refused(judged_run):
    with pytest.raises(PacketError, match="day 3: run .* has committed 120 ticks"):
        day_packets(judged_run, 3)
    with pytest.raises(PacketError, match="has no agent nobody"):
        day_packets(judged_run, 1, ["nobody"])


def _lines(packet) -> list[str]:
    return [spoken(i["text"]) for i in packet["items"] if i["own"]]


@pytest.mark.parametrize("kind", defects.KINDS)
def test_each_planted_defect_is_in_the_copy_and_not_in_the_original(judged_run, kind):
    others = {p.display_name: p.history for p in judged_run.scenario.personas.all()}
    planted = 0
    for packet in day_packets(judged_run, 1):
        before = repr(packet)
        altered = defects.plant(kind, packet, random.Random(kind), others)
        assert repr(packet) == before  # the original is never touched
        if altered is None or defects.present(kind, packet):
            continue
        planted += 1
        assert defects.present(kind, altered)
        assert len(altered["items"]) == len(packet["items"]) and tokens_of(altered) <= PACKET_TOKENS + 100
        said, was = _lines(altered), _lines(packet)
        if kind == "repetition":
            assert max(said.count(s) for s in said if s) >= 5 > max([was.count(s) for s in was if s] or [0])
        elif kind == "anachronism":
            assert any(w in " ".join(said) for w in packet["world"]["foreign_words"])
            assert not any(f" {w}" in " ".join(was) for w in packet["world"]["foreign_words"])
        elif kind == "early_name":
            barred = set(packet["cast"]) - set(packet["names_known"])
            assert any(n in s for s in said for n in barred) and not any(n in s for s in was for n in barred)
        elif kind == "persona_swap":
            assert any(s.startswith("I am ") and packet["agent"]["name"] not in s for s in said)
        else:
            first = next(s for s in was if s)
            assert any("I never said that" in s and first.rstrip(".!?") in s for s in said)
    assert planted >= 10
