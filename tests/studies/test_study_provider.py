"""study create --provider: the runs get run_voyage's one-off profile for that provider; bad input creates nothing."""
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from voyage.models import ModelProfile
from voyage.studies.models import Study

pytestmark = pytest.mark.django_db


def create(*args):
    out = StringIO()
    call_command("study", "create", "--name", "p", "--ticks", "2", "--vary", "seed=1,2", "--no-start", *args, stdout=out)
    return json.loads(out.getvalue())


def test_provider_sets_every_runs_profile():
    made = create("--provider", "vllm", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
    profile = ModelProfile.objects.get(base_url="http://127.0.0.1:9/v1")
    assert profile.provider == "vllm" and profile.model == "m"
    study = Study.objects.get(pk=made["study"])
    assert {m.run.profile_id for m in study.members.select_related("run")} == {profile.pk}


@pytest.mark.parametrize("args, words", [
    (["--base-url", "http://127.0.0.1:9/v1"], "--provider"),
    (["--provider", "vllm", "--set", "profile=x"], "not both"),
])
def test_bad_provider_input_names_it_and_creates_nothing(args, words):
    before = (Study.objects.count(), ModelProfile.objects.count())  # a session's shared rows may be there
    with pytest.raises(CommandError, match=words):
        create(*args)
    assert (Study.objects.count(), ModelProfile.objects.count()) == before


def test_a_small_study_on_a_provider_runs_to_its_end_with_no_refused_request():
    from tests.provider_servers import ProviderServer
    from voyage.models import Run
    with ProviderServer("vllm") as server:
        made = create("--provider", "vllm", "--base-url", server.base_url, "--model", "m",
                      "--set", "schedule=simultaneous")
        call_command("study", "run", str(made["study"]), stdout=StringIO(), stderr=StringIO())
        records = list(server.records)
    runs = [m.run for m in Study.objects.get(pk=made["study"]).members.select_related("run")]
    assert len(runs) == 2 and all(r.tick == 2 and r.state != Run.PAUSED for r in runs)
    assert records and not [r for r in records if r.get("refused")]
    actions = [r for r in records if "exactly these six keys" in r["body"]["messages"][0]["content"]]
    assert len(actions) > 30  # vLLM's dialect: each action call sends its schema as json_schema
    assert all((r["body"].get("response_format") or {}).get("type") == "json_schema" for r in actions)
