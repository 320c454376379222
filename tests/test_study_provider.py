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
    with pytest.raises(CommandError, match=words):
        create(*args)
    assert not Study.objects.exists() and not ModelProfile.objects.filter(kind=ModelProfile.OPENAI).exists()
