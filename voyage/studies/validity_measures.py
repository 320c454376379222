"""The measures a study's standard instruments give (`study create --instrument NAME@TICK`; registered
as `validity` in measures.py): per run, for an instrument asked at tick T,

- `validity_t<T>_<D>_score`: the mean over the agents of domain D's score (IPIP-NEO-120: the sum of
  its 24 items, 24-120), and `validity_t<T>_<D>_alpha`: Cronbach's alpha of the domain across the run's
  agents (empty when it cannot be computed);
- `validity_t<T>_<item>_tv` and `_wasserstein`: the distance of the agents' answers to people's (the
  bundled GSS shares of the latest year, on the published split), so `study compare` says whether an
  intervention moved the society toward people (a smaller distance) or away.

One value per run (per="run"), the tick in the name; the intervals and the persona table are the run's
validity report's (`manage.py validity`), not measures."""
from __future__ import annotations

from voyage.instruments.administer import scored, sheets
from voyage.instruments.distances import total_variation, wasserstein
from voyage.instruments.models import Survey
from voyage.instruments.psychometrics import NotComputable, cronbach_alpha
from voyage.instruments.standard_instruments import DOMAINS, instrument
from voyage.instruments.validity import domain_matrix, item_answers, references_for
from voyage.models import Run
from voyage.studies.study_surveys import MADE_BY

PREFIX = MADE_BY.split("{")[0]


def run_values(run: Run) -> dict:
    out = {}
    found = (Survey.objects.filter(run=run, made_by__startswith=PREFIX).exclude(instrument="")
             .order_by("id").values_list("instrument", "tick", "administration"))
    for name, tick, administration in dict(((n, t), (n, t, a)) for n, t, a in found).values():
        inst = instrument(name)
        if inst.scaled:
            taken = sheets(run, administration)
            scores = [sc.domains for _, sc in scored(inst, taken)]
            for d in DOMAINS:
                given = [s[d] for s in scores if s[d] is not None]
                out[f"t{tick}_{d}_score"] = round(sum(given) / len(given), 4) if given else None
                try:
                    out[f"t{tick}_{d}_alpha"] = round(float(cronbach_alpha(domain_matrix(inst, taken, d))), 4)
                except NotComputable:
                    out[f"t{tick}_{d}_alpha"] = None
        refs = references_for(inst, None, [])
        answers = item_answers(run, tick, administration, {r.item for r in refs}) if refs else {}
        for ref in refs:
            given = [a if a == ref.options[0] else ref.options[1] for a in answers.get(ref.item, []) if a is not None]
            if not given:
                out[f"t{tick}_{ref.item}_tv"] = out[f"t{tick}_{ref.item}_wasserstein"] = None
                continue
            agents = [given.count(o) / len(given) for o in ref.options]
            out[f"t{tick}_{ref.item}_tv"] = round(total_variation(agents, ref.shares), 4)
            out[f"t{tick}_{ref.item}_wasserstein"] = round(wasserstein(agents, ref.shares), 4)
    return out


def validity_values(tables, run_id: int) -> dict:
    cache = tables.__dict__.setdefault("_validity_values", {})
    if run_id not in cache:
        cache[run_id] = run_values(Run.objects.get(pk=run_id))
    return cache[run_id]
