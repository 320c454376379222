"""Model health on hand-made action call records whose shares are known (voyage/health): no database."""
from __future__ import annotations

import json

from voyage.health.answers import ActionCall, allowed_in, example_in
from voyage.health.load import health_from, health_line
from voyage.health.shares import evenness, summarise, verdicts
from voyage.health.warnings import MIN_ANSWERS
from collections import Counter

ALLOWED = ("interact", "move", "communicate", "sleep")


def act(kind, target=None, dialogue="", volume=None):
    return {"action_type": kind, "target_character": target, "volume": volume, "dialogue": dialogue,
            "duration_minutes": 3, "internal_monologue": "hm"}


EXAMPLE = act("interact", "the lamp")


def call(n, agent, answer, tick=None, example=EXAMPLE, outcome="ok", detail="", answered=True):
    raw = json.dumps(answer) if isinstance(answer, dict) else (answer or "")
    return ActionCall(n, agent, n if tick is None else tick, answered, outcome, detail, raw, example, ALLOWED)


def test_the_example_and_the_allowed_actions_are_read_off_the_turns_guide():
    from world.rules.prompt_text import turn_guide  # noqa: F401  the guide the prompt ends with
    last = ("...\nActions you may take now, and what each names: interact (a person or an item here); move (a room: "
            "a way out, or a room you know by name); sleep (null).\n"
            'An example of the form only (choose your own action): {"action_type": "move", "target_character": "Deck", '
            '"volume": null, "dialogue": "", "duration_minutes": 3, "internal_monologue": "x"}\nYour turn.')
    assert allowed_in(last) == ("interact", "move", "sleep")
    assert example_in(last)["target_character"] == "Deck"
    assert example_in("no guide here") is None and allowed_in("no guide here") == ()


def test_example_copies_count_key_for_key_among_answered_calls():
    calls = [call(1, "a", EXAMPLE), call(2, "b", EXAMPLE), call(3, "c", act("interact", "the lamp", "", "normal")),
             call(4, "d", None, answered=False, outcome="action_fail", detail="no answer")]
    h = summarise(verdicts(calls))
    # 2 of the 3 answered are the example; the third differs in one key only (volume).
    assert h["example_copy_share"] == round(2 / 3, 4)
    assert h["answered"] == 3 and h["action_calls"] == 4


def test_a_repeat_is_the_same_action_target_and_dialogue_as_the_agents_own_previous_answer():
    said = act("communicate", "Ann", "Hello.", "normal")
    calls = [call(1, "a", said), call(2, "b", said),  # b's first answer: nothing to repeat, though a said it
             call(3, "a", said),  # repeat
             call(4, "a", {**said, "volume": "shout", "internal_monologue": "other"}),  # same choice: repeat
             call(5, "a", act("communicate", "Ann", "Goodbye.", "normal")),  # new words: no repeat
             call(6, "b", act("move", "Deck"))]  # no repeat
    judged = verdicts(calls)
    assert [v.repeated for v in judged] == [None, None, True, True, False, False]
    h = summarise(judged)
    assert h["repeat_share"] == 0.5 and h["repeat_chances"] == 4


def test_distinct_dialogue_share_and_action_fail_share_by_reason():
    calls = [call(1, "a", act("communicate", None, "Hi.", "normal")), call(2, "b", act("communicate", None, "Hi.", "normal")),
             call(3, "c", act("communicate", None, "Who are you?", "normal")), call(4, "d", act("sleep")),
             call(5, "a", "prose", outcome="action_fail", detail="not valid JSON"),
             call(6, "b", act("move", "Attic"), outcome="action_fail", detail="unknown target 'Attic'"),
             call(7, "c", act("move", "Cellar"), outcome="action_fail", detail="unknown target 'Cellar'"),
             call(8, "d", act("sleep"))]
    from voyage.health.answers import reason_shape
    h = summarise(verdicts(calls), reason_shape)
    assert h["distinct_dialogue_share"] == round(2 / 3, 4)
    assert h["action_fail_share"] == round(3 / 8, 4)
    assert h["action_fail_reasons"] == {"unknown target '<target>'": 0.25, "not valid JSON": 0.125}


def test_evenness_is_pielous_j_over_the_allowed_actions():
    assert evenness(Counter({"interact": 5, "move": 5, "communicate": 5, "sleep": 5}), set(ALLOWED)) == 1.0
    assert evenness(Counter({"interact": 9}), set(ALLOWED)) == 0.0
    # half and half of four allowed: ln 2 / ln 4
    assert evenness(Counter({"interact": 4, "move": 4}), set(ALLOWED)) == 0.5
    assert evenness(Counter({"interact": 4}), {"interact"}) is None


def copying_run(n_agents=4, turns=5, copy_every=1):
    calls, n = [], 0
    for t in range(turns):
        for i in range(n_agents):
            n += 1
            example = act("interact", f"thing {t}")  # the example changes each turn
            own = (act("communicate", None, f"line {n}", "normal"), act("move", f"room {n % 3}"), act("sleep"),
                   act("interact", f"thing {n}"))[n % 4]
            answer = example if n % copy_every == 0 else own
            calls.append(call(n, f"agent{i}", answer, tick=t, example=example))
    return calls


def test_a_run_that_copies_its_example_is_warned_about_in_plain_words_with_calls_that_show_it():
    health = health_from(verdicts(copying_run()), lambda r: r, scripted=False)
    assert health["run"]["example_copy_share"] == 1.0
    codes = [w.code for w in health["warnings"]]
    assert "example_copy" in codes
    warning = health["warnings"][codes.index("example_copy")]
    assert warning.text.startswith("most answers copy the example answer")
    assert "the model's choices are not its own" in warning.text
    assert warning.calls and all(isinstance(cid, int) for _, cid in warning.calls)
    line = health_line(health)
    assert line["example_copy_share"] == 1.0 and any("copy the example" in w for w in line["warnings"])


def test_a_run_that_plays_its_own_game_has_no_warning():
    health = health_from(verdicts(copying_run(copy_every=7)), lambda r: r, scripted=False)
    assert health["run"]["example_copy_share"] < 0.5
    assert health["warnings"] == []


def test_the_offline_policy_is_never_warned_about_and_says_it_is_a_script():
    health = health_from(verdicts(copying_run()), lambda r: r, scripted=True)
    assert health["warnings"] == [] and "script" in health["note"]
    assert "script" in health_line(health)["scripted"]


def test_too_few_answers_give_no_warning():
    few = copying_run(n_agents=1, turns=MIN_ANSWERS - 1)
    assert health_from(verdicts(few), lambda r: r, scripted=False)["warnings"] == []


def test_agents_repeating_themselves_and_one_action_everywhere_are_warned_about():
    same = act("communicate", None, "Nice weather.", "normal")
    calls = [call(n, f"agent{n % 3}", same, tick=n) for n in range(1, 16)]
    health = health_from(verdicts(calls), lambda r: r, scripted=False)
    codes = {w.code for w in health["warnings"]}
    assert {"repeat", "few_lines", "uneven"} <= codes
    assert health["run"]["repeat_share"] == 1.0 and health["run"]["action_evenness"] == 0.0


def test_per_agent_and_per_day_figures():
    calls = [call(1, "a", EXAMPLE, tick=0), call(2, "b", act("sleep"), tick=0),
             call(3, "a", EXAMPLE, tick=480), call(4, "b", EXAMPLE, tick=480)]
    health = health_from(verdicts(calls), lambda r: r, scripted=False)
    assert health["by_agent"]["a"]["example_copy_share"] == 1.0
    assert health["by_agent"]["b"]["example_copy_share"] == 0.5
    assert health["by_day"][1]["example_copy_share"] == 0.5 and health["by_day"][2]["example_copy_share"] == 1.0


def test_answers_that_fill_in_what_their_action_ignores_are_counted_per_agent_and_profile():
    calls = [ActionCall(1, "a", 1, True, "ok", "volume ignored: sleep", json.dumps(act("sleep", volume="normal")),
                        EXAMPLE, ALLOWED, "strict"),
             ActionCall(2, "a", 2, True, "ok", "", json.dumps(act("move", "Deck", dialogue="  ")), EXAMPLE, ALLOWED,
                        "strict"),  # blank words are no words
             ActionCall(3, "b", 3, True, "ok", "dialogue ignored: interact",
                        json.dumps(act("interact", "the lamp", dialogue="Look!")), EXAMPLE, ALLOWED, "loose"),
             ActionCall(4, "b", 4, True, "ok", "", json.dumps(act("communicate", None, "Hi.", "shout")),
                        EXAMPLE, ALLOWED, "loose"),  # communicate uses both
             ActionCall(5, "b", 5, False, "action_fail", "no answer", "", EXAMPLE, ALLOWED, "loose")]
    health = health_from(verdicts(calls), lambda r: r, scripted=False)
    assert health["run"]["ignored_field_share"] == 0.5  # 2 of the 4 answered
    assert health["by_agent"]["a"]["ignored_field_share"] == 0.5
    assert health["by_agent"]["b"]["ignored_field_share"] == 0.5
    assert health["by_profile"]["strict"]["ignored_field_share"] == 0.5
    assert health["by_profile"]["loose"]["ignored_field_share"] == 0.5 and health["by_profile"]["loose"]["answered"] == 2
    assert health_line(health)["ignored_field_share"] == 0.5


def test_a_model_that_always_sets_a_volume_is_warned_about_though_nothing_fails():
    calls = [call(n, f"agent{n % 4}", act(("move", "sleep", "interact")[n % 3], None if n % 3 == 1 else "Deck",
                                          volume="normal"), tick=n) for n in range(1, 13)]
    health = health_from(verdicts(calls), lambda r: r, scripted=False)
    assert health["run"]["ignored_field_share"] == 1.0 and health["run"]["action_fail_share"] == 0.0
    [warning] = [w for w in health["warnings"] if w.code == "ignored_fields"]
    assert "does not follow the action contract closely" in warning.text
    assert "lose nothing" in warning.text and len(warning.calls) == 5
    few = health_from(verdicts(calls[:2] + [call(n, "x", act("sleep"), tick=n) for n in range(20, 30)]),
                      lambda r: r, scripted=False)
    assert few["run"]["ignored_field_share"] == round(2 / 12, 4)
    assert not [w for w in few["warnings"] if w.code == "ignored_fields"]  # under a quarter: no warning
