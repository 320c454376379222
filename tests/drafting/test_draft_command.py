"""`manage.py scenario draft` against a local chat-completions server (tests/drafting_server.py):
a draft whose first stages break known rules is repaired by the checker's messages and installs; a
model that never repairs, broken JSON, a refusal and a timeout each end with a report and nothing
installed; a bad ask is refused before any call. Real HTTP on 127.0.0.1, a real database."""
import json
import time

import pytest
from django.core.management import CommandError, call_command

from tests.drafting_server import FIXED_BY, DraftingServer
from voyage.models import ModelProfile, Run
from world.drafting.limits import MAX_PARAGRAPH, MAX_PEOPLE, DraftAsk
from world.models import Scenario

pytestmark = pytest.mark.django_db

PARAGRAPH = ("A mountain hut above the Lötschental, where the guide, the cook and three climbers wait out a storm. "
             "The hut has a stove room, a drying room, a bunk loft and a store of ropes and tins.")
ASK = DraftAsk(PARAGRAPH, people=4, rooms=6)


def profile_for(server, **fields) -> ModelProfile:
    return ModelProfile.objects.create(name="author-test", kind=ModelProfile.OPENAI, base_url=server.base_url,
                                       model="drafter", structured_output="json_schema", retries=0,
                                       **{"timeout_s": 5, **fields})


def draft(capsys, tmp_path, *extra, ask=ASK) -> tuple[dict, str, int]:
    """The JSON line, the whole output, and the exit status."""
    status = 0
    try:
        call_command("scenario", "draft", "--from", ask.paragraph, "--people", str(ask.people), "--rooms",
                     str(ask.rooms), "-o", str(tmp_path / "world.yaml"), *extra)
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr().out
    return json.loads(out.strip().splitlines()[-1]), out, status


def test_a_flawed_draft_is_repaired_by_the_checkers_messages_and_installs(capsys, tmp_path):
    with DraftingServer(ASK) as server:
        profile_for(server)
        result, out, status = draft(capsys, tmp_path, "--profile", "author-test", "--install")
    assert status == 0 and result["valid"] and result["installed"], out
    # The checker reads the format first, the world's rules once the format holds (as an import does):
    # round 1 mends the unknown action, round 2 what the world's rules and the playability checks then find.
    assert result["repair_rounds"] == 2 and result["problems_left"] == [], out
    assert (result["people"], result["rooms"]) == (4, 6)
    assert "unknown action 'fly'" in out.split("first draft:")[1].split("repair round 1")[0]
    round_1 = out.split("repair round 1")[1].split("repair round 2")[0]
    for rule_words in ("unknown room 'nowhere'", "as spouse, but", "voice.room_kind: missing",
                       "where no way leads from their home"):
        assert f"new: " in round_1 and rule_words in round_1, rule_words
    repairs = [r["body"] for r in server.records if "The world's checker" in r["body"]["messages"][1]["content"]]
    assert sorted(_stage(b) for b in repairs) == sorted(FIXED_BY)  # each flawed stage asked again, with its flaw
    for body in server.records:
        assert body["body"]["response_format"]["type"] == "json_schema"  # the profile's form, with the stage schema
        assert body["body"]["response_format"]["json_schema"]["schema"]["additionalProperties"] is False
    assert result["audits"]["clean"] and result["audits"]["leaks"] == 0 and result["audits"]["foreign_words"] == 0
    assert result["dry_run"]["ticks"] == 480 and result["dry_run"]["actions"] > 0
    scenario = Scenario.objects.get(slug=result["slug"])
    assert scenario.personas.count() == 4 and not Scenario.objects.filter(slug__startswith="dry-run-").exists()
    assert not Run.objects.filter(scenario__slug__startswith="dry-run-").exists()


def _stage(body) -> str:
    return body["messages"][1]["content"].split("Now the stage '")[1].split("'")[0]


def test_a_model_that_never_repairs_leaves_a_report_and_installs_nothing(capsys, tmp_path):
    with DraftingServer(ASK, repairs=False) as server:
        profile_for(server)
        result, out, status = draft(capsys, tmp_path, "--profile", "author-test", "--install", "--repair-rounds", "2")
    assert status == 1 and not result["valid"] and not result["installed"]
    assert result["repair_rounds"] == 2 and result["dry_run"] is None
    # the format still broken, so (as on import) the world's rules are not reached: what is left is the format's
    assert [(p["path"], p["rule"]) for p in result["problems_left"]] == [("rungs[1].allowed_actions[5]", "allowed values")]
    assert all(p["path"] and p["line"] for p in result["problems_left"])
    assert "still wrong after 2 repair round(s)" in out and "NOT installed" in out
    assert not Scenario.objects.filter(slug=result["slug"]).exists()
    assert "nowhere" in (tmp_path / "world.yaml").read_text()  # the draft is kept to read and edit


def test_a_model_that_never_mends_the_worlds_rules_leaves_each_with_its_key_path_line_and_rule(capsys, tmp_path):
    with DraftingServer(ASK, repairs=False, flawed=("premise", "rooms", "personas", "props")) as server:
        profile_for(server)
        result, out, status = draft(capsys, tmp_path, "--profile", "author-test", "--install", "--repair-rounds", "1")
    assert status == 1 and not result["installed"] and result["repair_rounds"] == 1
    left = {(p["path"], p["rule"]) for p in result["problems_left"]}
    assert {("exits[4][1]", "exits, homes and props name rooms of the scenario"),
            ("personas[0].spouse", "spouses are mutual and share a home"),
            ("voice.room_kind", "the voice and phrasebook give every text the engine speaks, in this world's words"),
            ("props[0].room", "every rung is reachable: it has a gate, and each gating prop lies where its owner can "
                              "walk")} <= left, left
    assert all(p["line"] for p in result["problems_left"]) and not Scenario.objects.filter(slug=result["slug"]).exists()


@pytest.mark.parametrize("mode", ["broken_json", "refusal", "timeout"])
def test_no_usable_answer_ends_with_a_report_and_nothing_installed(capsys, tmp_path, mode):
    before = Scenario.objects.count()
    with DraftingServer(ASK, mode="" if mode == "timeout" else mode, hang_s=1.5) as server:
        if mode == "timeout":
            server.force("timeout")
        profile_for(server, timeout_s=0.5)
        result, out, status = draft(capsys, tmp_path, "--profile", "author-test", "--install")
    assert status == 1 and not result["valid"] and not result["installed"]
    assert {"broken_json": "is not JSON", "refusal": "is not JSON", "timeout": "gave no answer"}[mode] in result["failure"]
    assert "stage 'premise'" in result["failure"] and "FAILED" in out
    assert Scenario.objects.count() == before and not (tmp_path / "world.yaml").exists()


@pytest.mark.parametrize("args, said", [
    (["--from", "   "], "the paragraph is empty"),
    (["--from", "x" * (MAX_PARAGRAPH + 1)], f"at most {MAX_PARAGRAPH}"),
    (["--from", PARAGRAPH, "--people", str(MAX_PEOPLE + 1)], f"between 2 and {MAX_PEOPLE}"),
    (["--from", PARAGRAPH, "--rooms", "99"], "between 3 and 30"),
])
def test_a_bad_ask_is_refused_before_any_call(tmp_path, args, said):
    with DraftingServer(ASK) as server:
        profile_for(server)
        with pytest.raises(CommandError, match="nothing was drafted") as refused:
            call_command("scenario", "draft", *args, "--profile", "author-test", "-o", str(tmp_path / "w.yaml"))
        assert server.records == []
    assert said in str(refused.value)


def test_a_projection_over_the_budget_is_refused_before_any_call(capsys, tmp_path):
    with DraftingServer(ASK) as server:
        profile_for(server, price_in_per_m=50, price_out_per_m=150)
        with pytest.raises(CommandError, match="over the budget"):
            call_command("scenario", "draft", "--from", PARAGRAPH, "--profile", "author-test", "--budget", "0.01",
                         "-o", str(tmp_path / "w.yaml"))
        assert server.records == []


def test_the_offline_policy_drafts_a_scripted_world_the_same_each_time(capsys, tmp_path):
    first, out, status = draft(capsys, tmp_path, "--install")
    text = (tmp_path / "world.yaml").read_text()
    assert status == 0 and first["installed"] and first["drafted_by"] == "scripted" and "scripted" in out
    assert "stove" in text.lower() and "loft" in text.lower()  # rooms from the paragraph's own nouns
    again, _, _ = draft(capsys, tmp_path)
    assert (tmp_path / "world.yaml").read_text() == text and not again["installed"]


@pytest.mark.slow
def test_twelve_people_and_fifteen_rooms_check_repair_and_run_their_day(capsys, tmp_path):
    ask = DraftAsk(PARAGRAPH, people=12, rooms=15)
    with DraftingServer(ask) as server:
        profile_for(server)
        started = time.process_time()
        result, out, _ = draft(capsys, tmp_path, "--profile", "author-test", ask=ask)
        cpu = time.process_time() - started
    print(f"12 people, 15 rooms: {cpu:.2f} s CPU, {result['repair_rounds']} repair round(s)")
    assert result["valid"] and result["repair_rounds"] == 2 and result["audits"]["clean"]
    # The target, 15 s, is a figure to measure (printed above), not to assert: the same code took
    # 18.5 s on a machine of this kind three times slower than the one it was set on. Only a gross
    # regression fails here.
    assert cpu < 60
