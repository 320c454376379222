"""`study compare` and the comparison page's "Between arms": each arm against the baseline, the same
numbers in the JSON lines, the CSV and the page, recomputed here from the results table."""
import csv
import io
import json

import pytest
from statsmodels.stats.multitest import multipletests
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from voyage.studies.config import StudyPlan, create_study
from voyage.studies.foreground import run_study
from voyage.studies.models import Study
from voyage.studies.results import csv_text
from voyage.studies.stats import KEYS, compare, seed_for

pytestmark = pytest.mark.django_db
MEASURE = "action_fail_rate"


def made(name, seeds):
    study = create_study(StudyPlan(name=name, scenario="1912", target_ticks=6,
                                   axes={"malformed_rate": ["0.0", "0.3", "0.6"], "seed": seeds}))
    run_study(study, io.StringIO())
    return study


@pytest.fixture
def study():
    return made("three arms", ["1", "2", "3"])


def lines(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("study", "compare", *args, stdout=out, stderr=err)
    return [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def expected(study, measure, day, arm, baseline):
    """From the results CSV, grouped here: the arm's and the baseline's values, compared."""
    rows = list(csv.DictReader(io.StringIO(csv_text(study))))
    values = {a: [r[measure] for r in rows if f"malformed_rate={r['malformed_rate']}" == a
                  and r["day"] == str(day)] for a in (arm, baseline)}
    return compare(measure, day, arm, values[arm], baseline, values[baseline],
                   seed=seed_for(study.name, measure, day, arm, baseline)).line()


def test_one_json_line_per_arm_against_the_baseline_and_the_same_csv(study, tmp_path):
    got, _ = lines("three arms", "--measure", MEASURE, "--baseline", "malformed_rate=0.3", "-o",
                   str(tmp_path / "c.csv"))
    assert [g["arm"] for g in got] == ["malformed_rate=0.0", "malformed_rate=0.6"]
    raw = [expected(study, MEASURE, 1, g["arm"], "malformed_rate=0.3") for g in got]
    holm = multipletests([r["p_value"] for r in raw], method="holm")[1]  # the two arms' p, adjusted together
    for g, r, adjusted in zip(got, raw, holm):
        assert tuple(g) == KEYS
        assert (g["measure"], g["day"], g["baseline"], g["n"], g["n_baseline"]) == (
            MEASURE, 1, "malformed_rate=0.3", 3, 3)
        assert g == {**r, "p_adjusted": pytest.approx(adjusted, rel=1e-5)}
        assert g["diff"] == pytest.approx(g["mean"] - g["mean_baseline"], abs=1e-4)
        assert g["p_value"] is not None and 0 < g["p_value"] <= 1
    assert got[0]["diff"] != 0 or got[1]["diff"] != 0  # the arms differ: the numbers are worth checking
    again, _ = lines("three arms", "--measure", MEASURE, "--baseline", "0.3", "--day", "1")  # the value alone
    assert again == got  # seeded from the study: the same numbers every time
    written = list(csv.DictReader(open(tmp_path / "c.csv")))
    assert [{k: json.loads(v) if k not in ("measure", "arm", "baseline") else v for k, v in row.items()}
            for row in written] == got


def test_all_measures_at_once_with_p_adjusted_for_every_comparison(study):
    got, _ = lines("three arms", "--all", "--adjust", "bh")
    columns = next(csv.reader(io.StringIO(csv_text(study))))
    measured = columns[columns.index("day") + 1:]
    assert [g["measure"] for g in got][::2] == measured and len(got) == 2 * len(measured)
    having = [g for g in got if g["p_value"] is not None]
    fdr = multipletests([g["p_value"] for g in having], method="fdr_bh")[1]
    assert [g["p_adjusted"] for g in having] == pytest.approx(list(fdr), rel=1e-5)
    assert all(g["p_adjusted"] is None for g in got if g["p_value"] is None)
    with pytest.raises(CommandError):
        lines("three arms", "--all", "--measure", "calls")


def test_the_default_baseline_is_the_first_arm(study):
    got, _ = lines("three arms", "--measure", "calls")
    assert [(g["arm"], g["baseline"]) for g in got] == [
        ("malformed_rate=0.3", "malformed_rate=0.0"), ("malformed_rate=0.6", "malformed_rate=0.0")]


@pytest.mark.parametrize("args, words", [
    (("--measure", "happiness"), "'happiness' is not a measure"),
    (("--measure", "words_loud"), "the words measure gives words_whisper, words_normal, words_shout"),
    (("--measure", "calls", "--day", "3"), "day 3 has no values (days: 1)"),
    (("--measure", "calls", "--baseline", "none"), "'none' is not an arm of the study (arms: malformed_rate=0.0;"),
])
def test_bad_input_names_what_is_wrong(study, args, words):
    with pytest.raises(CommandError, match=words.replace("(", r"\(").replace(")", r"\)")):
        lines("three arms", *args)


def test_one_seed_is_too_small_to_say_anything_and_the_page_says_so(client):
    made("one seed", ["1"])
    got, err = lines("one seed", "--measure", "calls")
    assert all((g["n"], g["ci_low"], g["p_value"], g["effect_size"]) == (1, None, None, None) for g in got)
    assert err.count("n too small to say anything") == 2
    client.force_login(User.objects.create_user("staff", is_staff=True))
    html = client.get(f"/studies/{Study.objects.get(name='one seed').pk}/?measure=calls").content.decode()
    assert html.count("n too small to say anything: 1 and 1 run(s)") == 2


def test_the_page_shows_the_same_numbers(client, study):
    client.force_login(User.objects.create_user("staff", is_staff=True))
    html = client.get(f"/studies/{study.pk}/?measure={MEASURE}&day=1&baseline=malformed_rate%3D0.6").content.decode()
    assert '<strong class="baseline">malformed_rate=0.6</strong>' in html
    got, _ = lines("three arms", "--measure", MEASURE, "--baseline", "malformed_rate=0.6")
    for g in got:
        assert f'data-arm="{g["arm"]}"' in html
        assert f'<td class="num p">{g["p_value"]:.4f}</td>' in html
        assert f'{g["ci_low"]:.4f} to {g["ci_high"]:.4f}' in html
