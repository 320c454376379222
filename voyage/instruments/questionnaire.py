"""A questionnaire: a title and items, read from YAML (a file, the survey form, an admin object) and
checked as a whole. Pure: no database.

    title: Life in the house
    items:
      - {id: safe, text: How safe do you feel here?, kind: scale,
         scale: {min: 1, max: 7, min_label: not at all, max_label: completely}}
      - {id: leader, text: Who speaks for the group?, kind: choice, options: [nobody, the nurse, the doctor]}
      - {id: worries, text: What worries you?, kind: choices, options: [the weather, money, the others]}
      - {id: days, text: How many days have you been here?, kind: number, range: {min: 0, max: 365}}
      - {id: wish, text: What do you wish for?, kind: text}

`read_questionnaire(text)` returns the Questionnaire or raises QuestionnaireError listing every
problem, each naming its line, its item and its key (`line 4: items[1] (leader).options: ...`)."""
from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

SCALE, CHOICE, CHOICES, NUMBER, TEXT = "scale", "choice", "choices", "number", "text"
KINDS = (SCALE, CHOICE, CHOICES, NUMBER, TEXT)
ID_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")  # a JSON property name every schema engine takes as it is
MAX_ITEMS, MAX_OPTIONS, MAX_SCALE_POINTS = 50, 20, 11
MAX_TITLE, MAX_TEXT, MAX_OPTION, MAX_LABEL = 200, 500, 100, 60
# PyYAML reads YAML 1.1, where "?" ends a plain scalar inside {...}: the issue's own form
# (`{text: How safe do you feel here?, kind: scale}`) would not read. Questions end in "?", and no
# questionnaire needs YAML's "? key" syntax, so every "?" is read as this private-use character and
# given back in the values.
QUESTION_MARK = "\ue000"
ITEM_KEYS = {"id", "text", "kind", "scale", "options", "range"}
KIND_KEYS = {SCALE: {"scale"}, CHOICE: {"options"}, CHOICES: {"options"}, NUMBER: {"range"}, TEXT: set()}


class QuestionnaireError(ValueError):
    """A questionnaire that cannot be used; `problems` lists every reason (line, item, key)."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class Item:
    id: str
    text: str
    kind: str
    options: tuple[str, ...] = ()  # choice, choices
    low: float | None = None  # scale: min (a whole number); number: range min
    high: float | None = None
    low_label: str = ""  # scale's end labels
    high_label: str = ""

    def as_dict(self) -> dict:
        out = {"id": self.id, "text": self.text, "kind": self.kind}
        if self.kind == SCALE:
            out["scale"] = {"min": self.low, "max": self.high, "min_label": self.low_label,
                            "max_label": self.high_label}
        elif self.kind in (CHOICE, CHOICES):
            out["options"] = list(self.options)
        elif self.kind == NUMBER:
            out["range"] = {"min": self.low, "max": self.high}
        return out


@dataclass(frozen=True)
class Questionnaire:
    title: str
    items: tuple[Item, ...]

    def as_dict(self) -> dict:
        """The form it was read from (a study or a survey stores this; `from_dict` reads it back)."""
        return {"title": self.title, "items": [i.as_dict() for i in self.items]}

    def as_yaml(self) -> str:
        return yaml.safe_dump(self.as_dict(), sort_keys=False, allow_unicode=True)


def from_dict(data) -> Questionnaire:
    return _check(data, {})


def read_questionnaire(text: str) -> Questionnaire:
    if not isinstance(text, str) or not text.strip():
        raise QuestionnaireError(["the questionnaire is empty: give a title and items"])
    if QUESTION_MARK in text:
        raise QuestionnaireError([f"the character U+{ord(QUESTION_MARK):04X} is not allowed in a questionnaire"])
    masked = text.replace("?", QUESTION_MARK)
    try:
        root = yaml.compose(masked, Loader=yaml.SafeLoader)
        data = _unmask(yaml.safe_load(masked))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        raise QuestionnaireError([f"{where}not valid YAML ({getattr(exc, 'problem', None) or exc})"]) from None
    lines: dict[str, int] = {}
    _index(root, "", lines)
    return _check(data, lines)


def _unmask(value):
    if isinstance(value, str):
        return value.replace(QUESTION_MARK, "?")
    if isinstance(value, list):
        return [_unmask(v) for v in value]
    if isinstance(value, dict):
        return {_unmask(k): _unmask(v) for k, v in value.items()}
    return value


def _index(node, path: str, lines: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = f"{path}.{key.value}" if path else str(key.value)
            lines.setdefault(sub, key.start_mark.line + 1)
            _index(value, sub, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            sub = f"{path}[{i}]"
            lines[sub] = item.start_mark.line + 1
            _index(item, sub, lines)


class _Problems:
    def __init__(self, lines: dict[str, int]):
        self.lines, self.found = lines, []

    def add(self, path: str, label: str, message: str) -> None:
        line = next((self.lines[p] for p in _ancestry(path) if p in self.lines), None)
        self.found.append((f"line {line}: " if line else "") + f"{label}: {message}")


def _ancestry(path: str):
    while path:
        yield path
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""


def _check(data, lines: dict[str, int]) -> Questionnaire:
    p = _Problems(lines)
    if not isinstance(data, dict):
        raise QuestionnaireError(["the questionnaire must be a mapping with a title and items"])
    for key in sorted(set(data) - {"title", "items"}, key=str):
        p.add(str(key), str(key), "unknown key (a questionnaire has title and items)")
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        p.add("title", "title", "required: the questionnaire's title, as text")
    elif len(title) > MAX_TITLE:
        p.add("title", "title", f"at most {MAX_TITLE} characters ({len(title)} given)")
    raw = data.get("items")
    items: list[Item] = []
    if not isinstance(raw, list) or not raw:
        p.add("items", "items", "required: a list of at least one item")
    elif len(raw) > MAX_ITEMS:
        p.add("items", "items", f"at most {MAX_ITEMS} items ({len(raw)} given)")
    else:
        seen: set[str] = set()
        for i, entry in enumerate(raw):
            item = _item(p, f"items[{i}]", entry, seen)
            if item is not None:
                items.append(item)
    if p.found:
        raise QuestionnaireError(p.found)
    return Questionnaire(title=title.strip(), items=tuple(items))


def _item(p: _Problems, path: str, entry, seen: set[str]) -> Item | None:
    if not isinstance(entry, dict):
        p.add(path, path, "an item is a mapping with id, text and kind")
        return None
    ident = entry.get("id")
    label = f"{path} ({ident})" if isinstance(ident, str) and ident else path
    before = len(p.found)
    if not isinstance(ident, str) or not ID_RE.match(ident):
        p.add(f"{path}.id", f"{label}.id", "required: lower-case letters, digits and _, starting with a letter "
                                           f"(at most 40), got {ident!r}")
    elif ident in seen:
        p.add(f"{path}.id", f"{label}.id", f"{ident!r} is the id of an earlier item: ids must differ")
    else:
        seen.add(ident)
    text = entry.get("text")
    if not isinstance(text, str) or not text.strip():
        p.add(f"{path}.text", f"{label}.text", "required: the question, as text")
    elif len(text) > MAX_TEXT:
        p.add(f"{path}.text", f"{label}.text", f"at most {MAX_TEXT} characters ({len(text)} given)")
    kind = entry.get("kind")
    if kind not in KINDS:
        p.add(f"{path}.kind", f"{label}.kind", f"must be one of {', '.join(KINDS)}; got {kind!r}")
        return None
    for key in sorted(set(entry) - ITEM_KEYS, key=str):
        p.add(f"{path}.{key}", f"{label}.{key}", "unknown key (an item has id, text, kind, scale, options, range)")
    for key in sorted((ITEM_KEYS - {"id", "text", "kind"} - KIND_KEYS[kind]) & set(entry)):
        p.add(f"{path}.{key}", f"{label}.{key}", f"a {kind} item takes no {key}")
    fields = {SCALE: _scale, CHOICE: _options, CHOICES: _options, NUMBER: _range, TEXT: lambda *a: {}}[kind](
        p, path, label, entry)
    if len(p.found) > before or fields is None:
        return None
    return Item(id=ident, text=text.strip(), kind=kind, **fields)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value \
        and abs(value) != float("inf")


def _scale(p, path, label, entry) -> dict | None:
    scale = entry.get("scale")
    if not isinstance(scale, dict):
        p.add(f"{path}.scale", f"{label}.scale", "required for a scale: {min, max, min_label, max_label}")
        return None
    for key in sorted(set(scale) - {"min", "max", "min_label", "max_label"}, key=str):
        p.add(f"{path}.scale.{key}", f"{label}.scale.{key}", "unknown key (a scale has min, max, min_label, max_label)")
    low, high = scale.get("min"), scale.get("max")
    for key, value in (("min", low), ("max", high)):
        if isinstance(value, bool) or not isinstance(value, int):
            p.add(f"{path}.scale.{key}", f"{label}.scale.{key}", f"required: a whole number, got {value!r}")
    labels = {}
    for key in ("min_label", "max_label"):
        value = scale.get(key, "")
        if not isinstance(value, str) or len(value) > MAX_LABEL:
            p.add(f"{path}.scale.{key}", f"{label}.scale.{key}", f"text of at most {MAX_LABEL} characters")
        labels[key] = value if isinstance(value, str) else ""
    if isinstance(low, int) and isinstance(high, int) and not isinstance(low, bool) and not isinstance(high, bool):
        if not 2 <= high - low + 1 <= MAX_SCALE_POINTS:
            p.add(f"{path}.scale", f"{label}.scale", f"min {low} to max {high}: a scale has 2 to "
                                                     f"{MAX_SCALE_POINTS} points, min below max")
    return {"low": low, "high": high, "low_label": labels["min_label"].strip(),
            "high_label": labels["max_label"].strip()}


def _options(p, path, label, entry) -> dict | None:
    options = entry.get("options")
    if not isinstance(options, list) or len(options) < 2:
        p.add(f"{path}.options", f"{label}.options", f"required for a {entry['kind']} item: a list of at least "
                                                     "2 options")
        return None
    if len(options) > MAX_OPTIONS:
        p.add(f"{path}.options", f"{label}.options", f"at most {MAX_OPTIONS} options ({len(options)} given)")
    clean = []
    for i, option in enumerate(options):
        if not isinstance(option, str) or not option.strip() or len(option) > MAX_OPTION:
            p.add(f"{path}.options[{i}]", f"{label}.options[{i}]", f"an option is text of 1 to {MAX_OPTION} "
                                                                   f"characters (quote it), got {option!r}")
        elif option.strip() in clean:
            p.add(f"{path}.options[{i}]", f"{label}.options[{i}]", f"{option!r} is given twice")
        else:
            clean.append(option.strip())
    return {"options": tuple(clean)}


def _range(p, path, label, entry) -> dict | None:
    bounds = entry.get("range")
    if not isinstance(bounds, dict):
        p.add(f"{path}.range", f"{label}.range", "required for a number: {min, max}")
        return None
    for key in sorted(set(bounds) - {"min", "max"}, key=str):
        p.add(f"{path}.range.{key}", f"{label}.range.{key}", "unknown key (a range has min and max)")
    low, high = bounds.get("min"), bounds.get("max")
    for key, value in (("min", low), ("max", high)):
        if not _number(value):
            p.add(f"{path}.range.{key}", f"{label}.range.{key}", f"required: a number, got {value!r}")
    if _number(low) and _number(high) and low >= high:
        p.add(f"{path}.range", f"{label}.range", f"min {low} must be below max {high}")
    return {"low": low, "high": high}
