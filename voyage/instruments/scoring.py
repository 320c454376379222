"""Scoring a scaled instrument's answer sheet (Johnson 2014): a reverse-keyed item counts as
(scale min + scale max) minus its answer, a facet is the sum of its items, a domain the sum of its
facets' items. A facet or domain with any item missing has no score (None): it is never guessed.
Pure: no database."""
from __future__ import annotations

from dataclasses import dataclass

from voyage.instruments.standard_instruments import Instrument


@dataclass(frozen=True)
class Scores:
    domains: dict  # letter -> sum, or None
    facets: dict  # code -> sum, or None
    domain_z: dict  # letter -> z against people, or None
    facet_z: dict
    norm: str  # which people


def keyed(instrument: Instrument, item: str, answer: int) -> int:
    k, spec = instrument.key_of()[item], instrument.item(item)
    return answer if k.key > 0 else int(spec.low + spec.high) - answer


def score_sheet(instrument: Instrument, answers: dict, sex: str = "", age: int | None = None) -> Scores:
    """`answers`: item id -> its answer (a whole number on the item's scale) or None."""
    facets: dict[str, int | None] = {}
    domains: dict[str, int | None] = {}
    for k, spec in zip(instrument.keys, instrument.items):
        answer = answers.get(k.item)
        value = None if answer is None else answer if k.key > 0 else int(spec.low + spec.high) - answer
        for bucket, code in ((facets, k.facet), (domains, k.domain)):
            if code in bucket and bucket[code] is None:
                continue
            bucket[code] = None if value is None else bucket.get(code, 0) + value
    dm, ds, fm, fs, label = instrument.norm_for(sex, age)
    return Scores(domains, facets, _z(domains, dm, ds), _z(facets, fm, fs), label)


def _z(scores: dict, means: dict, sds: dict) -> dict:
    return {code: None if value is None else round((value - means[code]) / sds[code], 4)
            for code, value in scores.items()}
