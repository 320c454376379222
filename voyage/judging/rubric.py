"""A rubric as data: a YAML file of dimensions (id, question, scale with anchor texts, weight, what it
reads) and the verdict's thresholds. Read and checked here, at the edge: an error names its key and
its line, and nothing inside re-checks. Pure (no database)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

DEFAULT = Path(__file__).parent / "rubrics" / "default.yaml"
READS = ("agent", "items", "recalled", "world", "names_known", "cast", "scene")
ANCHORS = ("low", "middle", "high")
CHECKS = ("repeat_alpha", "judges_alpha", "order_flip_share", "detection")
DEFAULT_VERDICT = {"reliable": {"repeat_alpha": 0.8, "judges_alpha": 0.667, "order_flip_share": 0.1, "detection": 0.8},
                   "unreliable": {"repeat_alpha": 0.667, "judges_alpha": 0.4, "order_flip_share": 0.3,
                                  "detection": 0.5}}


class RubricError(ValueError):
    """The rubric cannot be used; the message names the key and the line."""


@dataclass(frozen=True)
class Dimension:
    id: str
    question: str
    low: float
    high: float
    anchors: dict
    weight: float
    reads: tuple[str, ...]


@dataclass(frozen=True)
class Rubric:
    name: str
    dimensions: tuple[Dimension, ...]
    verdict: dict = field(default_factory=lambda: DEFAULT_VERDICT)

    def scales(self) -> tuple[tuple[str, float, float], ...]:
        return tuple((d.id, d.low, d.high) for d in self.dimensions)

    def weight_of(self, dim: str) -> float:
        return next(d.weight for d in self.dimensions if d.id == dim)

    def only(self, ids: list[str]) -> Rubric:
        """The rubric cut down to the dimensions `ids` (in the rubric's order), named so."""
        known = [d.id for d in self.dimensions]
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise RubricError(f"dimensions: {', '.join(map(repr, unknown))} not in rubric {self.name!r} "
                              f"(it has {', '.join(known)})")
        kept = tuple(d for d in self.dimensions if d.id in ids)
        return Rubric(f"{self.name} ({', '.join(d.id for d in kept)})", kept, self.verdict)

    def for_packet(self, packet: dict) -> Rubric:
        """The dimensions a packet is judged on: a scene's are those that read `scene`; an agent's
        day, every other (a dimension that reads a scene alone is not asked of an agent)."""
        if "scene" in packet:
            dims = tuple(d for d in self.dimensions if "scene" in d.reads)
        else:
            dims = tuple(d for d in self.dimensions if set(d.reads) - {"scene"})
        return self if dims == self.dimensions else Rubric(self.name, dims, self.verdict)


def _line(node) -> int:
    return node.start_mark.line + 1


def _fail(node, key: str, why: str):
    raise RubricError(f"{key} (line {_line(node)}): {why}")


def _mapping(node, key: str) -> dict:
    if not isinstance(node, yaml.MappingNode):
        _fail(node, key, "expected a mapping of keys to values")
    out = {}
    for k, v in node.value:
        if k.value in out:
            _fail(k, f"{key}.{k.value}", "given twice")
        out[k.value] = v
    return out


def _text(node, key: str) -> str:
    if not isinstance(node, yaml.ScalarNode) or not str(node.value).strip():
        _fail(node, key, "expected some text")
    return str(node.value).strip()


def _number(node, key: str) -> float:
    try:
        if not isinstance(node, yaml.ScalarNode):
            raise ValueError
        return float(node.value)
    except ValueError:
        _fail(node, key, f"expected a number, not {getattr(node, 'value', node)!r}")


def _unknown(fields: dict, allowed, key: str) -> None:
    for name, node in fields.items():
        if name not in allowed:
            _fail(node, f"{key}.{name}", f"unknown key (known: {', '.join(allowed)})")


def parse_rubric(text: str, name: str = "rubric") -> Rubric:
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise RubricError(f"{name} (line {mark.line + 1 if mark else '?'}): not YAML: "
                          f"{getattr(exc, 'problem', exc)}") from None
    if root is None:
        raise RubricError(f"{name} (line 1): empty; give rubric, scale and dimensions")
    top = _mapping(root, name)
    _unknown(top, ("rubric", "scale", "dimensions", "verdict"), name)
    scale = _mapping(top["scale"], "scale") if "scale" in top else {}
    default_low = _number(scale["low"], "scale.low") if "low" in scale else None
    default_high = _number(scale["high"], "scale.high") if "high" in scale else None
    if default_low is not None and default_high is not None and not default_low < default_high:
        _fail(top["scale"], "scale", f"low ({default_low:g}) must be below high ({default_high:g})")
    if "dimensions" not in top:
        _fail(root, "dimensions", "missing: list the rubric's dimensions")
    dims_node = top["dimensions"]
    if not isinstance(dims_node, yaml.SequenceNode) or not dims_node.value:
        _fail(dims_node, "dimensions", "expected a list of at least one dimension")
    dims, seen = [], set()
    for i, node in enumerate(dims_node.value):
        dims.append(_dimension(node, f"dimensions[{i}]", default_low, default_high, seen))
    verdict = _verdict(top["verdict"]) if "verdict" in top else DEFAULT_VERDICT
    title = _text(top["rubric"], "rubric") if "rubric" in top else name
    return Rubric(title, tuple(dims), verdict)


def _dimension(node, key: str, default_low, default_high, seen: set) -> Dimension:
    f = _mapping(node, key)
    _unknown(f, ("id", "question", "scale", "anchors", "weight", "reads"), key)
    for required in ("id", "question", "anchors"):
        if required not in f:
            _fail(node, f"{key}.{required}", "missing")
    dim_id = _text(f["id"], f"{key}.id")
    if not dim_id.replace("_", "").isalnum():
        _fail(f["id"], f"{key}.id", f"{dim_id!r}: letters, digits and _ only")
    if dim_id in seen:
        _fail(f["id"], f"{key}.id", f"{dim_id!r} is given to two dimensions")
    seen.add(dim_id)
    scale = _mapping(f["scale"], f"{key}.scale") if "scale" in f else {}
    low = _number(scale["low"], f"{key}.scale.low") if "low" in scale else default_low
    high = _number(scale["high"], f"{key}.scale.high") if "high" in scale else default_high
    if low is None or high is None:
        _fail(node, f"{key}.scale", "give low and high here or in the rubric's scale")
    if not low < high:
        _fail(f.get("scale", node), f"{key}.scale", f"low ({low:g}) must be below high ({high:g})")
    anchors = _mapping(f["anchors"], f"{key}.anchors")
    _unknown(anchors, ANCHORS, f"{key}.anchors")
    for end in ANCHORS:
        if end not in anchors:
            _fail(f["anchors"], f"{key}.anchors.{end}", "missing: give the anchor texts of low, middle and high")
    weight = _number(f["weight"], f"{key}.weight") if "weight" in f else 1.0
    if weight <= 0:
        _fail(f["weight"], f"{key}.weight", f"must be above 0, not {weight:g}")
    reads = ("items",)
    if "reads" in f:
        if not isinstance(f["reads"], yaml.SequenceNode) or not f["reads"].value:
            _fail(f["reads"], f"{key}.reads", f"a list of what it reads ({', '.join(READS)})")
        reads = tuple(_text(n, f"{key}.reads") for n in f["reads"].value)
        for n, r in zip(f["reads"].value, reads):
            if r not in READS:
                _fail(n, f"{key}.reads", f"{r!r} is not part of a packet ({', '.join(READS)})")
    return Dimension(dim_id, _text(f["question"], f"{key}.question"), low, high,
                     {end: _text(anchors[end], f"{key}.anchors.{end}") for end in ANCHORS}, weight, reads)


def _verdict(node) -> dict:
    levels = _mapping(node, "verdict")
    _unknown(levels, ("reliable", "unreliable"), "verdict")
    out = {level: dict(DEFAULT_VERDICT[level]) for level in DEFAULT_VERDICT}
    for level, level_node in levels.items():
        for check, value in _mapping(level_node, f"verdict.{level}").items():
            if check not in CHECKS:
                _fail(value, f"verdict.{level}.{check}", f"unknown check (known: {', '.join(CHECKS)})")
            out[level][check] = _number(value, f"verdict.{level}.{check}")
    return out


def load_rubric(path: str | Path | None = None) -> Rubric:
    path = Path(path) if path else DEFAULT
    try:
        text = path.read_text()
    except OSError as exc:
        raise RubricError(f"{path}: cannot read the rubric ({exc.strerror})") from None
    return parse_rubric(text, path.name)
