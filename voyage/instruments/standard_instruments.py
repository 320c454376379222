"""The standard instruments Voyage ships, read from their data files (voyage/instruments/standard/, each
citing its sources): the IPIP-NEO-120 (120 items on a 1-5 scale, reverse keys, five domains of six
facets, Johnson's adult norms by sex and age band) and General Social Survey items with the yearly share
of people giving one answer. Pure: no database.

An instrument becomes ordinary questionnaires (`pages(page_size)`: a long one is asked in pages, each
under its own schema) plus what ordinary questionnaires lack: which trait each item measures and in
which direction (`ItemKey`), so answers can be scored and the offline policy can answer from a trait
vector."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from voyage.instruments.questionnaire import CHOICE, MAX_ITEMS, SCALE, Item, Questionnaire

DATA = Path(__file__).with_name("standard")
IPIP, GSS = "ipip-neo-120", "gss-trust"
DOMAINS = ("N", "E", "O", "A", "C")


class UnknownInstrument(ValueError):
    pass


@dataclass(frozen=True)
class ItemKey:
    """What an item measures: its domain and facet, and +1 (agreeing scores high) or -1 (reverse-keyed)."""
    item: str
    domain: str
    facet: str
    key: int


@dataclass(frozen=True)
class NormBand:
    sex: str  # "M" or "F"
    age_min: int | None
    age_max: int | None
    label: str
    domain_mean: dict
    domain_sd: dict
    facet_mean: dict
    facet_sd: dict


@dataclass(frozen=True)
class Reference:
    """People's answers to one item: the share (0-1) giving `published`, for `year`, and its source."""
    item: str
    published: str
    share: float
    year: int
    source: str


@dataclass(frozen=True)
class Instrument:
    name: str
    title: str
    items: tuple[Item, ...]
    keys: tuple[ItemKey, ...] = ()  # scaled instruments only
    domains: dict | None = None  # letter -> name
    facets: dict | None = None  # code (N1) -> name
    norms: tuple[NormBand, ...] = ()
    human: dict | None = None  # published reliability figures, with their source
    references: dict | None = None  # year -> tuple[Reference]
    sources: tuple[str, ...] = ()
    leans: tuple[str, ...] = ()  # choice items about trust in others: the offline policy answers them from the
    # agent's trust ledger as its prompt shows it (their first option the trusting answer)

    @property
    def scaled(self) -> bool:
        return bool(self.keys)

    def key_of(self) -> dict[str, ItemKey]:
        return {k.item: k for k in self.keys}

    def item(self, ident: str) -> Item:
        return next(i for i in self.items if i.id == ident)

    def pages(self, page_size: int) -> list[Questionnaire]:
        """The items in order, `page_size` a page (1 to 50), each page a questionnaire of its own."""
        if not 1 <= page_size <= MAX_ITEMS:
            raise UnknownInstrument(f"page size {page_size}: give 1 to {MAX_ITEMS} items a page")
        chunks = [self.items[i:i + page_size] for i in range(0, len(self.items), page_size)]
        if len(chunks) == 1:
            return [Questionnaire(title=self.title, items=chunks[0])]
        return [Questionnaire(title=f"{self.title} (page {n} of {len(chunks)})", items=chunk)
                for n, chunk in enumerate(chunks, 1)]

    def reference(self, year: int | None = None) -> tuple[Reference, ...]:
        if not self.references:
            return ()
        year = year or max(self.references)
        if year not in self.references:
            raise UnknownInstrument(f"{self.name}: no published shares for {year} (years: "
                                    f"{min(self.references)}-{max(self.references)}, not every year)")
        return self.references[year]

    def norm_for(self, sex: str = "", age: int | None = None) -> tuple[dict, dict, dict, dict, str]:
        """(domain means, domain SDs, facet means, facet SDs, which norm): the band of the persona's sex and
        age; with either unstated, the 21-40 band's men and women averaged, as five-factor-e does for
        people of neither sex, and the label says so."""
        def fits(b: NormBand) -> bool:
            return (b.age_min is None or age >= b.age_min) and (b.age_max is None or age <= b.age_max)
        if sex in ("M", "F") and age is not None:
            band = next(b for b in self.norms if b.sex == sex and fits(b))
            return band.domain_mean, band.domain_sd, band.facet_mean, band.facet_sd, band.label
        pair = [b for b in self.norms if b.age_min == 21]
        avg = [{k: round(sum(getattr(b, part)[k] for b in pair) / len(pair), 2) for k in getattr(pair[0], part)}
               for part in ("domain_mean", "domain_sd", "facet_mean", "facet_sd")]
        return (*avg, "adults 21-40, men and women averaged (sex or age not stated)")


def _ipip() -> Instrument:
    data = json.loads((DATA / "ipip_neo_120.json").read_text(encoding="utf-8"))
    low_label, high_label = data["scale"]["labels"][0], data["scale"]["labels"][-1]
    items, keys = [], []
    for entry in data["items"]:
        ident = f"ipip{entry['n']:03d}"
        items.append(Item(id=ident, text=entry["text"], kind=SCALE, low=1, high=5, low_label=low_label,
                          high_label=high_label))
        keys.append(ItemKey(ident, entry["domain"], entry["facet"], entry["key"]))
    norms = tuple(NormBand(b["sex"], b["age_min"], b["age_max"], b["label"], b["domain_mean"], b["domain_sd"],
                           b["facet_mean"], b["facet_sd"]) for b in data["norms"])
    return Instrument(IPIP, data["title"], tuple(items), tuple(keys), data["domains"], data["facets"], norms,
                      data["human_reliability"], None, tuple(data["sources"]))


def _gss() -> Instrument:
    data = json.loads((DATA / "gss.json").read_text(encoding="utf-8"))
    items = tuple(Item(id=i["id"], text=i["text"], kind=CHOICE, options=tuple(i["options"])) for i in data["items"])
    years = sorted({int(y) for i in data["items"] for y in i["shares"]})
    source = data["sources"][0]
    refs = {y: tuple(Reference(i["id"], i["published"], i["shares"][str(y)] / 100, y, source)
                     for i in data["items"] if str(y) in i["shares"]) for y in years}
    return Instrument(GSS, data["title"], items, references=refs, sources=tuple(data["sources"]),
                      leans=tuple(i["id"] for i in data["items"]))


@cache
def instrument(name: str) -> Instrument:
    loaders = {IPIP: _ipip, GSS: _gss}
    if name not in loaders:
        raise UnknownInstrument(f"no instrument {name!r}: the instruments are {', '.join(loaders)}")
    return loaders[name]()


NAMES = (IPIP, GSS)
