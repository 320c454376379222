"""How far the agents' answers to an item are from people's: total variation (half the L1 distance of
the two share vectors, 0 to 1) and the Wasserstein-1 distance with the options at positions 0, 1, 2, ...
in their order (for an ordered scale: how many points apart, on average, the two populations answer).
Each with a percentile-bootstrap interval over the agents' answers. Pure.

People's distribution comes from a reference: the bundled GSS shares or a user's CSV (`item, option,
share` and optionally `group`), read and checked by `read_reference`."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np

from voyage.instruments.psychometrics import BOOTSTRAP, LEVEL, Figure


class ReferenceCSVError(ValueError):
    """A reference CSV that cannot be used; the message names the line and what is wrong."""


@dataclass(frozen=True)
class ReferenceItem:
    item: str
    group: str
    options: tuple[str, ...]  # in order (positions 0, 1, ...)
    shares: tuple[float, ...]  # sum to 1
    source: str
    split: str = ""  # non-empty: only one answer's share is published; the distance is on that split


def total_variation(p, q) -> float:
    return 0.5 * float(np.abs(np.asarray(p, float) - np.asarray(q, float)).sum())


def wasserstein(p, q) -> float:
    """W1 between two distributions over the positions 0, 1, ..., len-1."""
    return float(np.abs(np.cumsum(np.asarray(p, float) - np.asarray(q, float))[:-1]).sum())


def total_variations(p: np.ndarray, q) -> np.ndarray:
    """total_variation of each row of `p` (resamples x options) to `q`."""
    return 0.5 * np.abs(p - np.asarray(q, float)).sum(axis=1)


def wassersteins(p: np.ndarray, q) -> np.ndarray:
    """wasserstein of each row of `p` (resamples x options) to `q`."""
    return np.abs(np.cumsum(p - np.asarray(q, float), axis=1)[:, :-1]).sum(axis=1)


def shares_of(answers: list, options: tuple) -> np.ndarray:
    index = {o: i for i, o in enumerate(options)}
    counts = np.zeros(len(options))
    for a in answers:
        counts[index[a]] += 1
    return counts / counts.sum()


def distance(answers: list, ref: ReferenceItem, seed: int, resamples: int = BOOTSTRAP) -> dict:
    """tv_distance and wasserstein of the agents' answers (each one of ref.options) to people's."""
    given = [a for a in answers if a in ref.options]
    if not given:
        none = Figure(None, reason="no agent gave one of the reference's options")
        return {"tv_distance": none.as_dict(), "wasserstein": none.as_dict()}
    index = np.array([ref.options.index(a) for a in given])
    people = np.asarray(ref.shares)
    rng = np.random.default_rng(seed)
    k = len(ref.options)
    out = {}
    for name, fn in (("tv_distance", total_variations), ("wasserstein", wassersteins)):
        value = fn((np.bincount(index, minlength=k) / len(index))[None, :], people)[0]
        resampled = index[rng.integers(0, len(index), (resamples, len(index)))]
        draws = fn((resampled[:, :, None] == np.arange(k)).sum(axis=1) / len(index), people)
        tail = (1 - LEVEL) / 2
        low, high = np.quantile(draws, [tail, 1 - tail])
        out[name] = Figure(value, float(low), float(high), n=len(index)).as_dict()
    out["agents_shares"] = [round(float(s), 4) for s in np.bincount(index, minlength=k) / len(index)]
    out["people_shares"] = [round(float(s), 4) for s in people]
    return out


def split(ref_item: str, published: str, share: float, options: tuple, source: str) -> ReferenceItem:
    """People's split where only the share giving `published` is known: that answer against all others."""
    return ReferenceItem(ref_item, "", (published, "any other answer"), (share, 1 - share), source,
                         split=f"only the share answering {published!r} is published: the distance is on that "
                               f"answer against all others ({', '.join(o for o in options if o != published)})")


def read_reference(text: str, name: str = "the reference") -> list[ReferenceItem]:
    """`item, option, share[, group]` rows: the options of an item (and group) in order, shares 0-1 summing
    to 1 (within 0.01). Every problem is reported at once, each naming its line."""
    reader = csv.DictReader(io.StringIO(text))
    columns = set(reader.fieldnames or ())
    if not {"item", "option", "share"} <= columns:
        raise ReferenceCSVError(f"{name}: the header must name item, option and share (and optionally group); "
                              f"got {', '.join(reader.fieldnames or ()) or 'nothing'}")
    problems, found = [], {}
    for line, row in enumerate(reader, 2):
        item, option = (row.get("item") or "").strip(), (row.get("option") or "").strip()
        group = (row.get("group") or "").strip()
        try:
            share = float(row.get("share") or "")
        except ValueError:
            problems.append(f"line {line}: share {row.get('share')!r} is not a number")
            continue
        if not item or not option:
            problems.append(f"line {line}: item and option are required")
        elif not 0 <= share <= 1:
            problems.append(f"line {line}: share {share} is outside 0-1 (give shares, not per cents)")
        elif option in found.setdefault((item, group), {}):
            problems.append(f"line {line}: item {item} option {option!r} is given twice")
        else:
            found[(item, group)][option] = share
    for (item, group), shares in found.items():
        if shares and abs(sum(shares.values()) - 1) > 0.01:
            problems.append(f"item {item}{f' group {group}' if group else ''}: shares sum to "
                            f"{sum(shares.values()):.3f}, not 1")
    if not found and not problems:
        problems.append("no rows")
    if problems:
        raise ReferenceCSVError(f"{name}: " + "; ".join(problems))
    return [ReferenceItem(item, group, tuple(s), tuple(s.values()), name) for (item, group), s in found.items()]
