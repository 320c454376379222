"""Standard instruments in studies (issue 40): `study create --instrument NAME@TICK` asks every arm's run
once it has finished; its figures become `validity_*` measures that `study compare` tests between arms
(whether an intervention moved the society toward people's answers), and the instrument's 120 items do
not flood the survey measures."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from voyage.instruments.models import Survey
from voyage.studies.models import Study

pytestmark = pytest.mark.django_db
LAMP = 'lamp={"kind": "object_place", "tick": 3, "name": "Brass lamp", "room": "salon", "text": "It hums."}'


def test_instruments_in_a_study_become_validity_measures():
    call_command("study", "create", "--name", "measured", "--scenario", "edelweiss", "--ticks", "8",
                 "--vary", "intervention=none,lamp", "--vary", "seeds=2", "--intervention", LAMP,
                 "--instrument", "ipip-neo-120@5", "--instrument", "gss-trust@8", "--no-start", stdout=io.StringIO())
    call_command("study", "run", "measured", stdout=io.StringIO(), stderr=io.StringIO())
    study = Study.objects.get(name="measured")
    arms = study.members.filter(is_base=False).count()
    assert Survey.objects.filter(instrument="ipip-neo-120", made_by="study measured").values(
        "run").distinct().count() == arms
    out = io.StringIO()
    call_command("study", "results", "measured", stdout=out, stderr=io.StringIO())
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    header = list(rows[0])
    assert {"validity_t5_N_score", "validity_t5_N_alpha", "validity_t8_trust_tv", "validity_t8_fair_wasserstein"} \
        <= set(header)
    assert not any(c.startswith("survey_t5_ipip") for c in header)  # pages are not survey measures
    assert all(24 <= float(r["validity_t5_N_score"]) <= 120 for r in rows)
    assert all(0 <= float(r["validity_t8_trust_tv"]) <= 1 for r in rows)
    lines = io.StringIO()
    call_command("study", "compare", "measured", "--measure", "validity_t8_trust_tv", stdout=lines,
                 stderr=io.StringIO())
    [line] = [json.loads(x) for x in lines.getvalue().splitlines()]
    assert line["arm"] == "intervention=lamp" and line["n"] == 2 and "p_adjusted" in line


def test_an_unknown_instrument_is_refused_by_name():
    with pytest.raises(CommandError, match="--instrument 'mmpi@5': no instrument 'mmpi'"):
        call_command("study", "create", "--name", "x", "--scenario", "edelweiss", "--ticks", "8",
                     "--instrument", "mmpi@5", "--no-start", stdout=io.StringIO())
