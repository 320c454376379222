"""Surveys in studies (issue 32): `--survey FILE@TICK` puts a questionnaire to every run (not the base
runs) as it stood at that tick once it has finished; each item becomes measures of the results table
(mean for scales and numbers, share per option, share missing), equal to the answers computed here
independently. Bad --survey input names what is wrong and makes nothing."""
import csv
import io
import json
import statistics

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from tests.instruments.test_questionnaire import EXAMPLE
from voyage.instruments.models import Survey, SurveyAnswer
from voyage.instruments.questionnaire import from_dict
from voyage.instruments.surveys import take_survey
from voyage.models import LLMCall
from voyage.studies.models import Study
from voyage.studies.survey_measures import PREFIX

pytestmark = pytest.mark.django_db
N, TICKS = 10, 20
LAMP = 'lamp={"kind": "object_place", "tick": 10, "name": "Brass lamp", "room": "east_corridor", "text": "It hums."}'


@pytest.fixture
def questionnaire(tmp_path):
    path = tmp_path / "house.yaml"
    path.write_text(EXAMPLE, encoding="utf-8")
    return path


def create(name, *more):
    out = io.StringIO()
    call_command("study", "create", "--name", name, "--scenario", "edelweiss", "--ticks", str(TICKS),
                 "--vary", "intervention=none,lamp", "--intervention", LAMP, "--no-start", *more, stdout=out)
    return json.loads(out.getvalue())


def test_each_run_is_surveyed_at_each_tick_and_the_items_are_measures(questionnaire, tmp_path):
    create("polled", "--survey", f"{questionnaire}@{N}", "--survey", f"{questionnaire}@{TICKS}")
    study = Study.objects.get(name="polled")
    assert [s["tick"] for s in study.surveys] == [N, TICKS] and study.surveys[0]["questionnaire"]["title"] == \
        "Life in the house"
    out = io.StringIO()
    call_command("study", "run", "polled", stdout=out, stderr=io.StringIO())
    assert json.loads(out.getvalue())["surveys"] == 4  # two arms × two ticks; the base run is not asked
    arms = [m.run for m in study.members.filter(is_base=False)]
    surveys = Survey.objects.filter(run__in=arms)
    assert sorted((s.run_id, s.tick) for s in surveys) == sorted((r.pk, t) for r in arms for t in (N, TICKS))
    assert all(s.made_by == "study polled" and s.made_by.startswith(PREFIX) and s.scripted for s in surveys)
    assert not Survey.objects.filter(run__study_member__is_base=True).exists()

    results = tmp_path / "results.csv"
    call_command("study", "results", "polled", "-o", str(results), stderr=io.StringIO())
    rows = list(csv.DictReader(results.open(encoding="utf-8")))
    for column in (f"survey_t{N}_safe_mean", f"survey_t{N}_leader_nobody", f"survey_t{N}_leader_the_nurse",
                   f"survey_t{N}_worries_the_weather", f"survey_t{N}_days_mean", f"survey_t{N}_wish_missing",
                   f"survey_t{TICKS}_safe_missing"):
        assert column in rows[0], column
    for row in rows:
        for s in surveys.filter(run_id=int(row["run_id"])):
            answers = SurveyAnswer.objects.filter(survey=s)
            safe = [a.value for a in answers.filter(item="safe")]
            leaders = [a.value for a in answers.filter(item="leader")]
            worries = [a.value for a in answers.filter(item="worries")]
            assert float(row[f"survey_t{s.tick}_safe_mean"]) == round(statistics.fmean(safe), 4)
            assert float(row[f"survey_t{s.tick}_leader_the_doctor"]) == round(leaders.count("the doctor") / len(leaders), 4)
            assert float(row[f"survey_t{s.tick}_worries_money"]) == round(sum("money" in w for w in worries) / len(worries), 4)
            assert float(row[f"survey_t{s.tick}_safe_missing"]) == 0.0
    # The survey calls are not the run's own: the calls measure leaves them out (one day: every call).
    for row in rows:
        calls = LLMCall.objects.filter(run_id=int(row["run_id"]))
        assert calls.filter(purpose="survey").exists()
        assert int(row["calls"]) == calls.exclude(purpose="survey").count()
    # Asked again, nothing is asked twice; a second worker racing the first could not store it twice.
    call_command("study", "results", "polled", "-o", str(results), stderr=io.StringIO())
    assert Survey.objects.filter(run__in=arms).count() == 4
    with pytest.raises(IntegrityError), transaction.atomic():
        take_survey(arms[0], from_dict(study.surveys[0]["questionnaire"]), N, made_by="study polled")
    assert Survey.objects.filter(run__in=arms).count() == 4
    assert take_survey(arms[0], from_dict(study.surveys[0]["questionnaire"]), N).made_by == "manage.py"  # by hand: again
    # Between arms, a rating scale's mean is compared by Cliff's delta, a number's by Cohen's d.
    from voyage.studies.between import study_comparisons

    [scale] = study_comparisons(study, f"survey_t{N}_safe_mean")
    [number] = study_comparisons(study, f"survey_t{N}_days_mean")
    assert (scale.effect, number.effect) == ("cliff_delta", "cohen_d")


def test_a_missing_answer_counts_in_the_share_missing(questionnaire, tmp_path):
    create("gaps", "--survey", f"{questionnaire}@{N}")
    call_command("study", "run", "gaps", stdout=io.StringIO(), stderr=io.StringIO())
    survey = Survey.objects.filter(made_by="study gaps").order_by("id").first()
    first = SurveyAnswer.objects.filter(survey=survey, item="safe").order_by("id")[:1]
    SurveyAnswer.objects.filter(pk__in=[a.pk for a in first]).update(value=None, missing_reason="9 is off the scale 1-7")
    results = tmp_path / "r.csv"
    call_command("study", "results", "gaps", "-o", str(results), stderr=io.StringIO())
    [row] = [r for r in csv.DictReader(results.open(encoding="utf-8")) if int(r["run_id"]) == survey.run_id]
    assert float(row[f"survey_t{N}_safe_missing"]) == round(1 / survey.agents, 4)
    given = [a.value for a in SurveyAnswer.objects.filter(survey=survey, item="safe") if a.value is not None]
    assert float(row[f"survey_t{N}_safe_mean"]) == round(statistics.fmean(given), 4)


@pytest.mark.parametrize("spec, says", [
    ("{q}", "write FILE@TICK"),
    ("{q}@soon", "write FILE@TICK"),
    ("{q}@21", "the runs go to tick 20"),
    ("{dir}/none.yaml@5", "cannot read"),
    ("{bad}@5", "items[0] (a).kind: must be one of"),
])
def test_a_bad_survey_is_refused_naming_it_and_nothing_is_made(questionnaire, tmp_path, spec, says):
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: T\nitems:\n  - {id: a, text: A?, kind: rating}\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        create("refused", "--survey", spec.format(q=questionnaire, dir=tmp_path, bad=bad))
    assert says in str(caught.value)
    assert not Study.objects.filter(name="refused").exists()


def test_the_same_item_twice_at_one_tick_is_refused(questionnaire):
    with pytest.raises(CommandError, match="item days, leader, safe, wish, worries is asked twice at tick 5"):
        create("twice", "--survey", f"{questionnaire}@5", "--survey", f"{questionnaire}@5")
    assert not Study.objects.filter(name="twice").exists()


def test_a_study_made_in_the_admin_takes_saved_questionnaires(client):
    from django.contrib.auth.models import User

    from voyage.instruments.models import Questionnaire

    client.force_login(User.objects.create_superuser("boss", password="x"))
    Questionnaire.objects.create(name="house", text=EXAMPLE)
    form = {"name": "admin polled", "scenario": "edelweiss", "ticks": str(TICKS), "days": "", "budget_cost": "",
            "axes": "seeds=1", "shared": "", "parallel": "", "surveys": f"house@{N}\nhouse@{TICKS}"}
    refused = client.post("/admin/studies/study/add/", {**form, "surveys": "garden@5"})
    assert refused.status_code == 200 and "there is no saved questionnaire &#x27;garden&#x27;" in refused.content.decode()
    assert not Study.objects.exists()
    made = client.post("/admin/studies/study/add/", form)
    assert made.status_code == 302, made.content.decode()[:2000]
    study = Study.objects.get(name="admin polled")
    assert [(s["tick"], s["questionnaire"]["title"]) for s in study.surveys] == [(N, "Life in the house"),
                                                                                 (TICKS, "Life in the house")]
