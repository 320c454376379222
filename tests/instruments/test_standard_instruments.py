"""The standard instruments (issue 40): the IPIP-NEO-120 and the GSS items as data, paged, and scored
as Johnson scores them; the offline policy's planted traits come back out. Pure: no database."""
from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.stats import multivariate_normal, pearsonr

from voyage.gateway.offline_traits import LOADING, SPREAD, trait_answer, trait_vector
from voyage.instruments.psychometrics import cronbach_alpha
from voyage.instruments.scoring import score_sheet
from voyage.instruments.standard_instruments import GSS, IPIP, UnknownInstrument, instrument

# The 55 reverse-keyed items of the IPIP-NEO-120 (Johnson 2014), typed from five-factor-e's
# ipipneo/reverse.py, which ffm 0.1.0's reverse_items agrees with item by item.
REVERSED = {9, 19, 24, 30, 39, 40, 48, 49, 51, 53, 54, 60, 62, 67, 68, 69, 70, 73, 74, 75, 78, 79, 80, 81, 83, 84,
            85, 88, 89, 90, 92, 94, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 113,
            114, 115, 116, 118, 119, 120}
INST = instrument(IPIP)


def sheet(answer_of) -> dict:
    return {f"ipip{n:03d}": answer_of(n) for n in range(1, 121)}


def test_the_ipip_has_120_items_in_johnsons_order_with_his_keys():
    assert len(INST.items) == 120 and INST.items[0].text == "I worry about things."
    assert {int(k.item[4:]) for k in INST.keys if k.key < 0} == REVERSED
    assert [k.facet for k in INST.keys[:6]] == ["N1", "E1", "O1", "A1", "C1", "N2"]
    assert INST.keys[119].facet == "C6" and INST.items[119].text == "I act without thinking."
    assert all(i.low == 1 and i.high == 5 for i in INST.items)


@pytest.mark.parametrize("answer", [1, 5])
def test_a_sheet_all_at_one_end_scores_each_item_by_its_key(answer):
    scores = score_sheet(INST, sheet(lambda n: answer))
    for d in "NEOAC":
        items = [int(k.item[4:]) for k in INST.keys if k.domain == d]
        forward = sum(1 for n in items if n not in REVERSED)
        expected = answer * forward + (6 - answer) * (24 - forward)
        assert scores.domains[d] == expected
    # every item of C6 (cautiousness: items 30, 60, 90, 120) is reverse-keyed
    assert scores.facets["C6"] == 4 * (6 - answer)
    assert scores.facets["N1"] == 4 * answer  # items 1, 31, 61, 91: none reversed


def test_a_hand_scored_mixed_sheet():
    scores = score_sheet(INST, sheet(lambda n: (n // 7) % 5 + 1))
    # N1: items 1, 31, 61, 91 answered 1, 5, 4, 4 (none reversed) = 14
    assert scores.facets["N1"] == 14
    # C6: items 30, 60, 90, 120 answered 5, 4, 3, 3, all reversed: 1 + 2 + 3 + 3 = 9
    assert scores.facets["C6"] == 9
    assert scores.domains["N"] == sum(scores.facets[f"N{i}"] for i in range(1, 7))


def test_a_missing_answer_leaves_its_facet_and_domain_unscored_not_guessed():
    answers = sheet(lambda n: 3)
    answers["ipip001"] = None
    scores = score_sheet(INST, answers)
    assert scores.facets["N1"] is None and scores.domains["N"] is None
    assert scores.facets["N2"] == 12 and scores.domains["E"] == 72


def test_z_scores_against_the_band_of_the_personas_sex_and_age():
    scores = score_sheet(INST, sheet(lambda n: 3), "M", 19)
    # five-factor-e ipipneo/norm.py, men under 21: N mean 67.84, SD 15.83
    assert scores.norm == "men under 21 years old"
    assert scores.domain_z["N"] == pytest.approx((72 - 67.84) / 15.83, abs=1e-4)
    unstated = score_sheet(INST, sheet(lambda n: 3))
    assert "not stated" in unstated.norm


def test_pages_hold_every_item_once_in_order_each_under_its_own_questionnaire():
    pages = INST.pages(30)
    assert len(pages) == 4 and [len(p.items) for p in pages] == [30, 30, 30, 30]
    assert [i for p in pages for i in p.items] == list(INST.items)
    assert pages[1].title == "IPIP-NEO-120 (page 2 of 4)"
    assert [len(p.items) for p in INST.pages(50)] == [50, 50, 20]
    with pytest.raises(UnknownInstrument, match="1 to 50"):
        INST.pages(51)


def test_an_unknown_instrument_is_named_with_the_known_ones():
    with pytest.raises(UnknownInstrument, match="no instrument 'bfi-44'.*ipip-neo-120, gss-trust"):
        instrument("bfi-44")


def test_the_gss_items_carry_their_published_share_for_a_year_and_say_which_answer_it_is():
    gss = instrument(GSS)
    refs = {r.item: r for r in gss.reference(2024)}
    assert refs["trust"].share == pytest.approx(0.25) and refs["fair"].share == pytest.approx(0.42)
    assert refs["trust"].published == "most people can be trusted"
    assert refs["trust"].published in gss.item("trust").options
    assert {r.item: r.share for r in gss.reference(1972)} == {"trust": 0.46, "fair": 0.60}
    with pytest.raises(UnknownInstrument, match="no published shares for 1971"):
        gss.reference(1971)


def implied_alpha(k: int = 24, low: int = 1, high: int = 5) -> float:
    """The alpha the offline generating model implies for k items: every keyed item is the same
    discretisation of z = LOADING*theta + noise, so items share one variance v and one covariance c
    (from the bivariate normal of two items' z, correlation LOADING^2), and alpha = k c / (v + (k-1) c)."""
    middle, half = (low + high) / 2, (high - low) / 2
    points = np.arange(low, high + 1)
    # z falls in point p's cell between these cut points
    cuts = [(p - 0.5 - middle) / (SPREAD * half) for p in points]
    edges = [-np.inf] + cuts[1:] + [np.inf]
    p1 = np.diff([0.0] + [multivariate_normal(0, 1).cdf(e) if np.isfinite(e) else float(e > 0) for e in edges[1:]])
    mean = (p1 * points).sum()
    var = (p1 * (points - mean) ** 2).sum()
    rho = LOADING ** 2
    mvn = multivariate_normal([0, 0], [[1, rho], [rho, 1]])

    def cdf(a, b):
        big = 50.0
        return mvn.cdf([min(a, big) if np.isfinite(a) else (big if a > 0 else -big),
                        min(b, big) if np.isfinite(b) else (big if b > 0 else -big)])
    joint = np.zeros((len(points), len(points)))
    for i in range(len(points)):
        for j in range(len(points)):
            joint[i, j] = (cdf(edges[i + 1], edges[j + 1]) - cdf(edges[i], edges[j + 1])
                           - cdf(edges[i + 1], edges[j]) + cdf(edges[i], edges[j]))
    cov = (joint * np.outer(points - mean, points - mean)).sum()
    return k * cov / (var + (k - 1) * cov)


def test_planted_traits_come_back_and_alpha_is_within_005_of_what_the_model_implies():
    agents = [f"p{n}" for n in range(400)]
    expected = implied_alpha()
    assert 0.85 < expected < 0.97
    for d in "NEOAC":
        keys = [k for k in INST.keys if k.domain == d]
        rows = []
        for a in agents:
            r = random.Random(f"{a}:{d}")
            theta = trait_vector(a)[d]
            rows.append([trait_answer(r, theta, k.key, 1, 5) for k in keys])
        keyed = np.array([[v if k.key > 0 else 6 - v for k, v in zip(keys, row)] for row in rows])
        assert abs(cronbach_alpha(keyed) - expected) < 0.05
        r_planted, _ = pearsonr([trait_vector(a)[d] for a in agents], keyed.sum(axis=1))
        assert r_planted > 0.85


def test_offline_the_gss_trust_items_lean_with_the_trust_ledger_the_prompt_shows():
    import json

    from voyage.gateway.offline_survey import TRUST_LEAN, SurveyHints, SurveyItemHint, survey
    gss = instrument(GSS)
    items = tuple(SurveyItemHint(i.id, i.kind, i.options, trait=TRUST_LEAN, keyed=1) for i in gss.items)

    def trusting(labels):
        answers = [json.loads(survey(random.Random(n), SurveyHints(items, "x", "noon", (), labels)))["trust"]
                   for n in range(400)]
        return answers.count("most people can be trusted") / len(answers)
    warm, cold = trusting(("ally",) * 6), trusting(("suspect",) * 6)
    # leaning (allies + 1) / (known + 2): 7/8 and 1/8, of the 90 % not answering "it depends"
    assert abs(warm - 0.9 * 7 / 8) < 0.06 and abs(cold - 0.9 * 1 / 8) < 0.06
