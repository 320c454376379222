"""The cached context layout: the same content as the seed layout, with what changes every turn last
and the recent rows as a log that only grows between moves, so consecutive prompts of an agent share
all but their tail. (The privacy tests run on both layouts: test_memory_voyage.py and
test_rung_zero_stays_unnamed.py are parametrized.)"""
import pytest

from memories.context import (ANSWER_CACHED, ANSWER_NOW, DREAM_HEADER, HOT_HEADER, LOG_HEADER, RECALL_HEADER,
                              action_messages, cues_for, dream_line, log_capacity, log_start, log_step, log_text,
                              placed_dream)
from memories.working import DreamLine
from voyage.engine.world import HotLine
from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline
from voyage.health.answers import allowed_in, example_in
from voyage.engine.runner import advance
from voyage.engine.world import RunWorld
from voyage.models import LLMCall, Run
from world.rules.ladder import rung_spec
from world.rules.prompt_text import WHAT_EACH_NAMES, names_line
from world.time import time_of_day

HOT = 10  # a small hot window, so a short run moves the log several times


@pytest.mark.parametrize("limit", [1, 2, 10, 50])
def test_the_log_start_moves_in_whole_steps_and_the_log_stays_within_its_bounds(limit):
    most, step = log_capacity(limit), log_step(limit)
    starts = [log_start(n, limit) for n in range(0, 20 * limit)]
    for n, start in enumerate(starts):
        assert start % step == 0 and 0 <= start <= n
        assert n - start <= most  # never more rows than RunWorld holds
        if n >= most:
            assert n - start > most - step
    moves = [n for n in range(1, len(starts)) if starts[n] != starts[n - 1]]
    assert all(b - a == step for a, b in zip(moves, moves[1:]))  # once a step of rows, no oftener
    # on average about a hot window: prompts no longer than the seed layout's
    shown = [n - start for n, start in enumerate(starts)][most:]
    assert 0.8 * limit <= sum(shown) / len(shown) <= 1.05 * limit


def rows(*ticks):
    return [HotLine(t, "observe", f"row at {t}") for t in ticks]


def dream(tick):
    return DreamLine(tick, tick, f"Who I am, dreamt at {tick}.\n\nThe rooms I know.\n\nWhom I trust.")


def dreamt_at(tick):
    return f"[{time_of_day(tick)}] You dream: Who I am, dreamt at {tick}. The rooms I know. Whom I trust."


def test_the_latest_dream_has_its_place_in_the_log_after_the_rows_of_the_tick_its_sleep_began():
    log = rows(10, 11, 12, 12, 20)
    assert placed_dream(dream(12), log) == (None, [dream(12)])
    assert log_text(log, [dream(12)]).split("\n")[1:] == [
        f"[{time_of_day(10)}] row at 10", f"[{time_of_day(11)}] row at 11", f"[{time_of_day(12)}] row at 12",
        f"[{time_of_day(12)}] row at 12", dreamt_at(12), f"[{time_of_day(20)}] row at 20"]
    assert log_text(log, [dream(25)]).split("\n")[-1] == dreamt_at(25)
    # dreamt before the log's first row, or with no log yet: in the system prompt, as the seed shows it
    assert placed_dream(dream(9), log) == (dream(9), [])
    assert placed_dream(dream(9), []) == (dream(9), [])
    assert placed_dream(None, log) == (None, [])


def test_a_new_dream_keeps_the_log_before_the_last_one():
    """The next dream joins the end of the log; the last one leaves it at its own place, so the
    prompt up to there is shared."""
    log = rows(10, 11, 12, 30)
    before = log_text(log, placed_dream(dream(11), log)[1])
    later = log + rows(31, 40)
    after = log_text(later, placed_dream(dream(31), later)[1])
    kept = before[:before.index(dreamt_at(11))]
    assert after.startswith(kept) and dreamt_at(11) not in after and after.endswith(dreamt_at(31) + "\n" +
                                                                                   f"[{time_of_day(40)}] row at 40")
    assert len(kept) > len(LOG_HEADER) + 2 * len("[06:30] row at 10")


@pytest.fixture(scope="module")
def cached_run(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), jobs_inline():
        run = new_run(seed=11, target_ticks=90, hot_memory_limit=HOT, context_layout=Run.CACHED_LAYOUT,
                      name="cached layout")
        advance(run, 90)
        yield Run.objects.get(pk=run.pk)
        Run.objects.filter(pk=run.pk).delete()


def sort_key(line: str) -> tuple[int, str]:
    """"[Day 2, 08:30] ..." (a recalled row) or "[08:30] ..." (a log row, of the run's only day)."""
    stamp = line[1:line.index("]")]
    day, _, clock = stamp.rpartition(", ")
    return (int(day.removeprefix("Day ")) if day else 1, clock)


def unrecalled(text: str) -> str:
    return "\n\n".join(part for part in text.split("\n\n") if not part.startswith(RECALL_HEADER))


def split_recalled(log: str) -> tuple[str, list[str]]:
    """A log without the recalled rows it shows (a one-day run: a recalled row's stamp names its day,
    a log row's does not), and those rows."""
    lines = log.split("\n")
    if RECALL_HEADER not in lines:
        return log, []
    i = j = lines.index(RECALL_HEADER)
    while j + 1 < len(lines) and lines[j + 1].startswith("[Day "):
        j += 1
    return "\n".join(lines[:i] + lines[j + 1:]), lines[i + 1:j + 1]


def row_count(log: str) -> int:
    """The memory rows a log shows (its dream lines and recalled rows left out)."""
    return sum(1 for line in split_recalled(log)[0].split("\n")[1:] if "] You dream: " not in line)


def log_block(prompt: list[dict]) -> str:
    user = prompt[1]["content"]
    assert user.startswith(LOG_HEADER + "\n")
    return user.split("\n\n", 1)[0]


@pytest.mark.django_db
def test_consecutive_prompts_share_all_but_their_tail(cached_run):
    last, grown, recalled_again, new_recall, moved = {}, 0, 0, 0, 0
    for call in LLMCall.objects.filter(run=cached_run, purpose="action").order_by("id"):
        prompt = call.prompt
        before = last.get(call.agent_id)
        last[call.agent_id] = prompt
        if before is None or before[0] != prompt[0]:  # first call, or rung, summary or dream changed
            continue
        old, new = log_block(before), log_block(prompt)
        if new.startswith(old):  # the log only grew: everything up to its old end is shared
            grown += 1
            assert "\n".join(m["content"] for m in prompt).startswith(prompt[0]["content"] + "\n" + old)
            recalled_again += RECALL_HEADER in old  # the same recalled rows kept their place in it
        elif split_recalled(new)[0].startswith(split_recalled(old)[0]):  # other rows recalled: the old ones
            new_recall += 1  # leave their place, the new ones join the end, and the log up to there is shared
            assert new.startswith(old[:old.index(RECALL_HEADER)])
            lines = new.split("\n")
            if RECALL_HEADER in lines:  # (none come back, or the new ones do, last)
                assert all(line.startswith("[Day ") for line in lines[lines.index(RECALL_HEADER) + 1:])
        else:  # the log's first row moved on by a whole window (or a compaction reset it)
            moved += 1
            assert row_count(new) > log_capacity(HOT) - log_step(HOT)
        assert row_count(new) <= log_capacity(HOT)
    assert grown > 1000 and moved > 10 and recalled_again > 100 and new_recall > 10
    assert moved < grown / 2  # with a 10-row window and ~2.5 new rows a turn, about one turn in four


GUIDE = "Actions you may take now"  # world.rules.prompt_text.turn_guide
SLEEP = "Sleep names nobody: its target_character is null."  # world.rules.prompt_text.RULES_PREAMBLE


@pytest.mark.django_db
def test_both_layouts_carry_the_same_content(cached_run):
    cached = RunWorld(Run.objects.get(pk=cached_run.pk))
    as_seed = Run.objects.get(pk=cached_run.pk)
    as_seed.context_layout = Run.SEED_LAYOUT
    seed = RunWorld(as_seed)  # the same committed state, held as the seed layout holds it
    compared = dreamt = 0
    for aid, agent in cached.agents.items():
        if not agent.alive:
            continue
        tick = cached_run.tick
        a = action_messages(cached, agent, cached.situation(agent), tick, cues_for(cached, agent, tick))
        b = action_messages(seed, seed.agents[aid], seed.situation(seed.agents[aid]), tick,
                            cues_for(seed, seed.agents[aid], tick))
        # rules, rung, soul entries, summaries: one system prompt; the latest dream last in it, or, in the
        # cached layout, in the log where it was dreamt if the log reaches back that far
        dream = cached.memory.dream_at(aid, tick)
        names = names_line(rung_spec(cached.rungs, agent.rung).allowed_actions)
        assert a[0]["content"].count(names) == 1 and names not in b[0]["content"]
        a[0] = {**a[0], "content": a[0]["content"].replace(names + "\n", "", 1)}  # after the rules, once per rung
        in_log = [dream_line(dream)] if dream and dream_line(dream) in a[1]["content"].split("\n") else []
        if in_log:
            assert a[0]["content"] + "\n\n" + DREAM_HEADER + "\n" + dream.text == b[0]["content"]
            dreamt += 1
        else:
            assert a[0]["content"] == b[0]["content"]
        log, rest = a[1]["content"].split("\n\n", 1)
        log, recalled = split_recalled(log)
        log = "\n".join(line for line in log.split("\n") if line not in in_log)
        now, hot = b[1]["content"].split("\n\n" + HOT_HEADER + "\n")
        hot, guide = hot.split("\n\n" + GUIDE, 1)  # the hot window, then the guide and the ask that close the turn
        turn, cached_guide = rest.split("\n\n" + GUIDE, 1)
        # time, situation and cues in the same words (recalled rows depend on how far back each prompt's
        # rows reach; they are never rows the log shows), then the same actions allowed now, the same
        # example and the same ask; what each allowed action names is in the cached system message
        assert turn == unrecalled(now)
        guide, cached_guide = GUIDE + guide, GUIDE + cached_guide
        assert allowed_in(cached_guide) == allowed_in(guide) and example_in(cached_guide) == example_in(guide)
        assert cached_guide.endswith("\n\n" + ANSWER_CACHED) and guide.endswith("\n\n" + ANSWER_NOW)
        for action in allowed_in(guide):  # (sleep's: the rules' own words, in both)
            assert f"{action} ({WHAT_EACH_NAMES[action]})" in guide
            assert f"{action} ({WHAT_EACH_NAMES[action]})" in names or action == "sleep" and SLEEP in b[0]["content"]
        log_rows = log.split("\n")[1:]
        hot_rows = hot.split("\n")
        newest = min(len(log_rows), HOT)
        assert log_rows[-newest:] == hot_rows[:newest][::-1]  # the newest rows, oldest first
        assert len(log_rows) > log_capacity(HOT) - log_step(HOT) or log_rows == hot_rows[::-1]
        # recalled rows are older than the log's first row (by id; by the clock, no later)
        assert all(sort_key(r) <= sort_key(log_rows[0]) for r in recalled)
        compared += 1
    assert compared > 25 and dreamt > 5


@pytest.mark.django_db
def test_run_voyage_takes_the_layout():
    import io
    import json

    from django.core.management import call_command

    out = io.StringIO()
    call_command("run_voyage", "--ticks", "2", "--layout", "cached", stdout=out, stderr=io.StringIO())
    run = Run.objects.get(pk=json.loads(out.getvalue().strip().splitlines()[-1])["run_id"])
    assert run.context_layout == Run.CACHED_LAYOUT
    prompt = LLMCall.objects.filter(run=run, purpose="action").first().prompt
    assert prompt[1]["content"].startswith(LOG_HEADER)
