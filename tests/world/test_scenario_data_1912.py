"""Invariants of the default 1912 scenario (world/scenarios/1912.yaml, read as plain data: no Django,
no database). `d` holds the file's data in the shape these checks were first written for."""
import datetime
import re
from collections import Counter, deque
from itertools import combinations

from types import SimpleNamespace

import yaml

from world.scenarios.files import shipped_file


def _as_module(data: dict) -> SimpleNamespace:
    props = data["props"]

    def prop(p):
        return {"name": p["name"], "description": p["description"], "room": p["room"]}

    def owned(key, kind):
        return next(prop(p) for p in props if p["owner"] == key and p["kind"] == kind)

    personas = [{"key": p["key"], "display_name": p["display_name"], "history": p["history"], "secret": p["secret"],
                 "fear": p["fear"], "soul": p["soul"], "home_node": p["home"], "spouse": p["spouse"],
                 "name_prop": owned(p["key"], "name"), "fear_prop": owned(p["key"], "fear")}
                for p in data["personas"]]
    return SimpleNamespace(
        SLUG=data["slug"], NAME=data["name"], START_DATE=data["start_date"], PREMISE=data["premise"],
        ROOMS=data["rooms"], EXITS=[tuple(e) for e in data["exits"]], PERSONAS=personas,
        ALIEN_PROPS=[prop(p) for p in props if p["kind"] == "alien"],
        SCENERY_PROPS=[prop(p) for p in props if p["kind"] == "scenery"], RUNGS=data["rungs"])


d = _as_module(yaml.safe_load(shipped_file("1912").read_text(encoding="utf-8")))

ROOM_KEYS = {"key", "name", "deck", "scale", "ambient_noise", "private", "description"}
PERSONA_KEYS = {"key", "display_name", "history", "secret", "fear", "soul", "home_node", "spouse",
                "name_prop", "fear_prop"}
PROP_KEYS = {"name", "description", "room"}
ACTIONS = {"interact", "move", "communicate", "sleep", "attack"}
SMALL_WORDS = {"a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "the", "to", "with"}
KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")

ROOMS = {r["key"]: r for r in d.ROOMS}
CABINS = {k for k, r in ROOMS.items() if r["private"]}
PERSONAS = {p["key"]: p for p in d.PERSONAS}


def _norm(s):
    return s.strip().casefold()


def _adjacency():
    adj = {k: set() for k in ROOMS}
    for a, b in d.EXITS:
        adj[a].add(b)
        adj[b].add(a)
    return adj


def _distances(adj, start):
    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in adj[node]:
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    return dist


def _all_props():
    props = []
    for p in d.PERSONAS:
        props.append(("name", p["key"], p["name_prop"]))
        props.append(("fear", p["key"], p["fear_prop"]))
    props += [("alien", None, x) for x in d.ALIEN_PROPS]
    props += [("scenery", None, x) for x in d.SCENERY_PROPS]
    return props


# ---- header ------------------------------------------------------------------------------------

def test_header_constants():
    assert d.SLUG == "1912"
    assert isinstance(d.NAME, str) and d.NAME.strip()
    assert "titanic" not in d.NAME.casefold()
    assert datetime.date.fromisoformat(d.START_DATE) == datetime.date(1912, 4, 11)
    assert isinstance(d.PREMISE, str)
    paragraphs = [p for p in d.PREMISE.split("\n\n") if p.strip()]
    assert 1 <= len(paragraphs) <= 3
    assert "1912" in d.PREMISE
    assert "titanic" not in d.PREMISE.casefold()


# ---- rooms -------------------------------------------------------------------------------------

def test_room_count_and_fields():
    assert len(d.ROOMS) == 38
    for r in d.ROOMS:
        assert set(r) == ROOM_KEYS, r["key"]
        assert KEY_RE.match(r["key"]), r["key"]
        assert r["scale"] in {"small", "vast"}
        assert r["ambient_noise"] in {"low", "high"}
        assert isinstance(r["private"], bool)
        assert r["name"].strip() and r["deck"].strip() and r["description"].strip()


def test_room_keys_and_names_unique():
    assert len(ROOMS) == len(d.ROOMS)
    names = [_norm(r["name"]) for r in d.ROOMS]
    assert len(set(names)) == len(names)


def test_cabins_small_private_and_public_rooms_not_private():
    for key, r in ROOMS.items():
        if key.startswith("cabin_") or "quarters" in key:
            assert r["private"] is True, key
        if r["private"]:
            assert r["scale"] == "small", key
    for r in d.ROOMS:
        if not r["private"]:
            assert not r["key"].startswith("cabin_")
    assert 12 <= len(CABINS) <= 16


def test_cabin_mix_across_classes_and_crew():
    decks = {ROOMS[k]["deck"] for k in CABINS}
    assert len(decks) >= 4
    for key in ("officers_quarters", "crew_quarters"):
        assert key in CABINS


def test_grand_rooms_are_vast():
    words = ("Promenade", "Saloon", "Lounge", "Smoking Room", "Reading", "Staircase", "Library",
             "General Room")
    grand = [r for r in d.ROOMS if any(w in r["name"] for w in words)]
    assert len(grand) >= 8
    for r in grand:
        assert r["scale"] == "vast", r["key"]
        assert r["private"] is False, r["key"]


def test_crew_areas_present():
    for key in ("bridge", "wireless_room", "galley", "engine_room", "boiler_room", "mail_room",
                "cargo_hold", "infirmary"):
        assert key in ROOMS, key
        assert ROOMS[key]["private"] is False


def test_ambient_noise_mix():
    high = {k for k, r in ROOMS.items() if r["ambient_noise"] == "high"}
    for key in ("engine_room", "boiler_room", "third_class_general_room", "first_class_dining_saloon",
                "first_class_smoking_room", "boat_deck_promenade"):
        assert key in high, key
    assert len(high) < len(ROOMS) / 2  # most rooms are quiet


def test_public_decks():
    public_decks = Counter(r["deck"] for r in d.ROOMS if not r["private"])
    assert len(public_decks) >= 4
    assert len({r["deck"] for r in d.ROOMS}) >= 6


# ---- exits and graph ---------------------------------------------------------------------------

def test_exits_valid():
    seen = set()
    for a, b in d.EXITS:
        assert a in ROOMS, a
        assert b in ROOMS, b
        assert a != b, a
        pair = frozenset((a, b))
        assert pair not in seen, (a, b)
        seen.add(pair)


def test_graph_connected():
    adj = _adjacency()
    start = next(iter(ROOMS))
    assert set(_distances(adj, start)) == set(ROOMS)


def test_graph_span():
    adj = _adjacency()
    diameter = max(max(_distances(adj, k).values()) for k in ROOMS)
    assert 6 <= diameter <= 10
    # bridge to engine room: one end of the ship to the other
    assert 6 <= _distances(adj, "bridge")["engine_room"] <= 10


def test_cabins_are_dead_ends_off_public_rooms():
    adj = _adjacency()
    for key in CABINS:
        assert adj[key], key
        for nb in adj[key]:
            assert nb not in CABINS, (key, nb)
    corridors = {nb for key in CABINS for nb in adj[key]}
    assert any(ROOMS[c]["scale"] == "small" and not ROOMS[c]["private"] for c in corridors)


# ---- personas ----------------------------------------------------------------------------------

def test_persona_count_and_fields():
    assert len(d.PERSONAS) == 33
    for p in d.PERSONAS:
        assert set(p) == PERSONA_KEYS, p["key"]
        assert KEY_RE.match(p["key"]), p["key"]
        for field in ("display_name", "history", "secret", "fear"):
            assert isinstance(p[field], str) and p[field].strip(), (p["key"], field)
        assert isinstance(p["soul"], list) and len(p["soul"]) == 3, p["key"]
        assert all(isinstance(s, str) and s.strip() for s in p["soul"])
        assert len({_norm(s) for s in p["soul"]}) == 3
        for prop_field in ("name_prop", "fear_prop"):
            assert set(p[prop_field]) == PROP_KEYS, (p["key"], prop_field)


def test_persona_keys_and_names_unique():
    assert len(PERSONAS) == len(d.PERSONAS)
    names = [_norm(p["display_name"]) for p in d.PERSONAS]
    assert len(set(names)) == len(names)
    assert all(len(p["display_name"].split()) >= 2 for p in d.PERSONAS)


def test_home_nodes_are_private_cabins():
    for p in d.PERSONAS:
        home = p["home_node"]
        assert home in ROOMS, p["key"]
        assert ROOMS[home]["private"] is True, p["key"]
        assert ROOMS[home]["scale"] == "small", p["key"]


def test_spouses_symmetric_and_share_cabin():
    couples = set()
    for p in d.PERSONAS:
        s = p["spouse"]
        if s is None:
            continue
        assert s in PERSONAS, p["key"]
        assert s != p["key"]
        assert PERSONAS[s]["spouse"] == p["key"], (p["key"], s)
        assert PERSONAS[s]["home_node"] == p["home_node"], (p["key"], s)
        couples.add(frozenset((p["key"], s)))
    assert len(couples) >= 4


def test_secrets_independent():
    secrets = [_norm(p["secret"]) for p in d.PERSONAS]
    assert len(set(secrets)) == len(secrets)
    for a, b in combinations(d.PERSONAS, 2):
        for x, y in ((a, b), (b, a)):
            other_secret = _norm(y["secret"])
            for field in ("history", "secret", "fear"):
                assert other_secret not in _norm(x[field]), (x["key"], field, y["key"])


# ---- props -------------------------------------------------------------------------------------

def test_prop_counts():
    assert len(d.ALIEN_PROPS) >= 6
    assert 15 <= len(d.SCENERY_PROPS) <= 30
    for x in d.ALIEN_PROPS + d.SCENERY_PROPS:
        assert set(x) == PROP_KEYS, x


def test_prop_fields_and_rooms():
    for kind, owner, prop in _all_props():
        assert prop["name"].strip() and prop["description"].strip(), (kind, owner)
        assert prop["room"] in ROOMS, (kind, owner, prop["name"])


def test_prop_names_short_title_case():
    for kind, owner, prop in _all_props():
        words = prop["name"].split()
        assert 2 <= len(words) <= 5, prop["name"]
        for i, w in enumerate(words):
            if i > 0 and w in SMALL_WORDS:
                continue
            assert w[0].isupper() or w[0].isdigit(), prop["name"]


def test_target_names_unique_across_scenario():
    props = [_norm(p["name"]) for _, _, p in _all_props()]
    rooms = [_norm(r["name"]) for r in d.ROOMS]
    people = [_norm(p["display_name"]) for p in d.PERSONAS]
    assert len(set(props)) == len(props), [n for n, c in Counter(props).items() if c > 1]
    everything = props + rooms + people
    assert len(set(everything)) == len(everything), [n for n, c in Counter(everything).items() if c > 1]


def test_name_props_placement_and_legibility():
    in_home = 0
    for p in d.PERSONAS:
        np = p["name_prop"]
        if np["room"] == p["home_node"]:
            in_home += 1
        else:
            assert ROOMS[np["room"]]["private"] is False, p["key"]
        assert _norm(p["display_name"]) in _norm(np["description"]), p["key"]
    assert in_home >= 20
    assert in_home <= 30  # a few names must be hunted for in public rooms


def test_fear_props_never_in_own_or_any_cabin():
    for p in d.PERSONAS:
        fp = p["fear_prop"]
        assert fp["room"] != p["home_node"], p["key"]
        assert ROOMS[fp["room"]]["private"] is False, p["key"]


def test_alien_and_scenery_props_in_public_rooms():
    for x in d.ALIEN_PROPS + d.SCENERY_PROPS:
        assert ROOMS[x["room"]]["private"] is False, x["name"]
    assert len({x["room"] for x in d.SCENERY_PROPS}) >= 10


# ---- rungs -------------------------------------------------------------------------------------

def test_rung_structure():
    assert [r["level"] for r in d.RUNGS] == [0, 1, 2]
    assert [r["name"] for r in d.RUNGS] == ["Panic", "Name", "Fear"]
    for r in d.RUNGS:
        assert set(r) == {"level", "name", "reveals", "allowed_actions", "gate", "knows"}
        assert r["reveals"].strip()
        assert set(r["allowed_actions"]) <= ACTIONS and r["allowed_actions"]
    assert set(d.RUNGS[0]["allowed_actions"]) == ACTIONS
    assert d.RUNGS[0]["gate"] is None
    assert d.RUNGS[1]["gate"] == {"prop": "name_prop", "min_ticks_since_previous": 0}
    assert d.RUNGS[2]["gate"] == {"prop": "fear_prop", "min_ticks_since_previous": 480}
    assert d.RUNGS[0]["knows"] == [] and {"own_name", "item_names", "people_names"} <= set(d.RUNGS[1]["knows"])
    assert set(d.RUNGS[1]["knows"]) < set(d.RUNGS[2]["knows"]) and {"fear", "secret"} <= set(d.RUNGS[2]["knows"])


def test_rung_zero_reveals_no_setting():
    text = _norm(d.RUNGS[0]["reveals"])
    for word in ("ship", "1912", "liner", "voyage", "atlantic", "ocean", "sea ", "deck", "cabin",
                 "steward", "passenger", "aboard", "meridian", "titanic"):
        assert word not in text, word
    assert _norm(d.NAME) not in text


def test_rung_one_mandates_social_engagement():
    text = _norm(d.RUNGS[1]["reveals"])
    assert "name" in text
    assert "cold" in text


def test_rung_two_mentions_fear_secret_and_cover():
    text = _norm(d.RUNGS[2]["reveals"])
    assert "fear" in text and "secret" in text and "cover" in text
