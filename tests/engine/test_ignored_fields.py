"""An answer is judged by what its action uses (world.rules.actions.IGNORED): a volume and words on
a move, an examination or a sleep are set aside, not an ACTION_FAIL — never spoken, never heard,
never in anyone's memory or prompt — and the call's record says what was ignored. Tried against
local OpenAI-protocol servers: one that ignores response_format and fills every key, and one that
answers each action call with a random instance of OpenAI's strict flat schema."""
import io
import json

import pytest
from django.core.management import call_command

from memories.models import Memory
from tests.provider_servers import RandomSchemaServer, StrayFieldsServer
from voyage.gateway.prompts import decompress_messages
from voyage.health.load import health_of
from voyage.models import Event, LLMCall, Run

pytestmark = pytest.mark.django_db

KEY_ENV = "VOYAGE_IGNORED_FIELDS_TEST_KEY"
WORDS = "Zephyrine marmalade wardrobe"  # said in no scenario: if it shows anywhere, it leaked


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-ignored-fields")


def run_against(server, provider: str, ticks: int = 4) -> Run:
    out = io.StringIO()
    with server:
        call_command("run_voyage", "--ticks", str(ticks), "--schedule", "simultaneous", "--provider", provider,
                     "--base-url", server.base_url, "--model", "m", "--api-key-env", KEY_ENV,
                     stdout=out, stderr=io.StringIO())
    return Run.objects.get(pk=json.loads(out.getvalue().strip().splitlines()[-1])["run_id"])


def action_calls(run):
    return LLMCall.objects.filter(run=run, purpose="action")


def test_a_sleep_with_a_volume_goes_ahead_and_the_call_says_what_was_ignored(key):
    run = run_against(StrayFieldsServer(), "anthropic")
    calls = action_calls(run)
    assert calls.count() > 30
    assert all(json.loads(raw)["volume"] == "normal" for raw in calls.values_list("raw_answer", flat=True))
    assert not calls.filter(outcome=LLMCall.ACTION_FAIL).exists()  # it was every one of them
    assert set(calls.values_list("outcome", "detail")) == {(LLMCall.OK, "volume ignored: sleep")}
    assert Event.objects.filter(run=run, kind="sleep").count() >= calls.count()


@pytest.fixture
def stray_run(key) -> Run:
    return run_against(StrayFieldsServer(kinds=("sleep", "interact", "move"), words=WORDS, volume="shout"), "anthropic")


def test_stray_words_with_any_action_are_never_spoken_heard_or_remembered(stray_run):
    calls = action_calls(stray_run)
    kinds = {json.loads(raw)["action_type"] for raw in calls.values_list("raw_answer", flat=True)}
    assert kinds == {"sleep", "interact", "move"}
    assert all(WORDS in raw for raw in calls.values_list("raw_answer", flat=True))  # every answer had them
    ok = calls.filter(outcome=LLMCall.OK)
    assert ok.count() > 30
    assert {detail for detail in ok.values_list("detail", flat=True)} <= {
        f"volume and dialogue ignored: {kind}" for kind in ("sleep", "interact", "move")}
    assert len(set(ok.values_list("detail", flat=True))) == 3
    assert not Memory.objects.filter(agent__run=stray_run, text__contains="Zephyrine").exists()
    assert not Event.objects.filter(run=stray_run, text__contains="Zephyrine").exists()
    assert not any("Zephyrine" in json.dumps(data) for data in
                   Event.objects.filter(run=stray_run).values_list("data", flat=True))
    assert not Event.objects.filter(run=stray_run, kind="communicate").exists()
    every_prompt = [json.dumps(decompress_messages(bytes(blob)))
                    for blob in LLMCall.objects.filter(run=stray_run).values_list("prompt_z", flat=True)]
    # later prompts carry the agents' own memories of what they did, and never the words
    assert any("You lie down to sleep" in p or "You turn to" in p for p in every_prompt)
    assert not any("Zephyrine" in p for p in every_prompt)


def test_model_health_counts_answers_with_fields_their_action_ignores(stray_run):
    health = health_of(stray_run)
    assert health["run"]["ignored_field_share"] == 1.0
    assert all(h["ignored_field_share"] == 1.0 for h in health["by_agent"].values())
    assert list(health["by_profile"]) == [stray_run.profile.name]
    assert health["by_profile"][stray_run.profile.name]["ignored_field_share"] == 1.0
    [warning] = [w for w in health["warnings"] if w.code == "ignored_fields"]
    assert warning.text.startswith("many answers fill in what their action does not use (100% of")
    assert "The agents lose nothing by it" in warning.text and warning.calls


IGNORED_REASONS = ("unless you communicate", "or null")  # what a volume or words on a move used to cost
# What a random instance of the flat schema may still get wrong, because the action needs it: its
# target (a sleeper naming someone, a walk to where it stands, a whisper to nobody), or, to
# communicate, words to say and a volume to say them at.
TARGET_REASONS = ("sleep takes no target_character", "needs a target_character", "unknown target",
                  "you are already in the", "is no longer here")
SPEECH_REASONS = ("communicate needs a non-empty dialogue", "to communicate (got null)")


def test_random_instances_of_openais_strict_schema_fail_only_for_what_the_action_needs(key):
    run = run_against(RandomSchemaServer("openai"), "openai")
    calls = action_calls(run)
    failed = list(calls.filter(outcome=LLMCall.ACTION_FAIL).values_list("detail", flat=True))
    assert calls.count() > 30 and calls.filter(outcome=LLMCall.OK).count() > 10
    assert not [r for r in failed if any(word in r for word in IGNORED_REASONS)]
    assert all(any(t in r for t in TARGET_REASONS + SPEECH_REASONS) for r in failed), set(failed)
    ignored = calls.filter(outcome=LLMCall.OK, detail__contains="ignored")
    assert ignored.exists()  # the random answers do fill in volumes on moves and sleeps
