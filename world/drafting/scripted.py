"""The offline policy's drafts: a small world built deterministically from a paragraph's nouns and
a template seeded by the paragraph itself. It is scripted, not written by a model, and says so in
its premise; it keeps every rule of the file and the playability checks. Pure.

Rooms: shared rooms named for the paragraph's nouns (a template's place words when they run out),
joined in a line from the first; homes (two people at most each) hang off them. People: names
from a seeded template; the first two are married. Props: each person's name prop at home, fear
prop in a shared room, one piece of scenery per shared room.
"""
from __future__ import annotations

import hashlib
import random
import unicodedata

from world.drafting.limits import DraftAsk
from world.drafting.words import DEFAULT_WORLD_WORDS, nouns, place_name, words_in
from world.rules.actions import ACTION_TYPES
from world.scenarios.voice import PHRASES, TEXTS

SCRIPTED = "scripted"
PLACE_WORDS = ("hall", "yard", "garden", "store", "landing", "porch", "court", "loft", "kitchen", "well", "gate",
               "path", "shed", "workshop", "library", "pantry", "terrace", "orchard", "cellar", "washroom",
               "stable", "chapel", "bakehouse", "boathouse", "study", "parlour", "laundry", "dairy", "forge", "tower")
SUFFIXES = ("Hall", "Yard", "Walk", "Corner", "Room", "Court", "Steps", "Green", "Store", "Landing")
FIRST = ("Ada", "Bram", "Cora", "Dov", "Elin", "Fen", "Greta", "Hugo", "Ines", "Jory", "Kit", "Lior", "Mara",
         "Nils", "Orla", "Piet", "Quin", "Rhea", "Soren", "Tova", "Ulla", "Vik", "Wren", "Yara", "Zeno")
FAMILY = ("Abel", "Brand", "Carrow", "Dunne", "Ebbe", "Falk", "Gale", "Holt", "Ivers", "Joss", "Kell", "Lund",
          "Moss", "Nye", "Orme", "Pell", "Rook", "Sill", "Thorn", "Vane", "Wick", "Yarrow")
KEEPSAKES = ("Letter", "Locket", "Notebook", "Ring", "Scarf", "Ticket", "Badge", "Diary", "Compass", "Pocket Knife")
FIXTURES = ("Bell", "Clock", "Bench", "Lamp", "Map", "Barrel", "Rope Coil", "Basket", "Chest", "Mirror")
WOUNDS = ("a debt you never paid", "a fire you started and let others take the blame for",
          "a letter you opened that was not yours", "a promise you broke to someone who trusted you",
          "money you took from a common fund", "a name you were not born with")


def seed_of(paragraph: str) -> int:
    return int.from_bytes(hashlib.sha256(paragraph.strip().encode()).digest()[:8], "big")


def scripted_world(ask: DraftAsk) -> dict:
    """The whole scenario data for a paragraph and sizes: the same ask, the same world."""
    rng = random.Random(seed_of(ask.paragraph))
    place = place_name(ask.paragraph) or rng.choice(("Hollin", "Marrow", "Tessel", "Brindle"))
    foreign = {w.lower() for w in DEFAULT_WORLD_WORDS} - words_in(ask.paragraph)
    words = [w for w in nouns(ask.paragraph) if w not in foreign] + [w for w in PLACE_WORDS if w not in foreign]
    people = _people(rng, ask.people)
    homes = (ask.people + 1) // 2
    shared = _shared_rooms(words, ask.rooms - homes)
    home_rooms = [_home_room(people[2 * i], i) for i in range(homes)]
    for i, person in enumerate(people):
        person["home"] = home_rooms[i // 2]["key"]
    people[0]["spouse"], people[1]["spouse"] = people[1]["key"], people[0]["key"]
    exits = [[shared[i - 1]["key"], shared[i]["key"]] for i in range(1, len(shared))]
    exits += [[shared[i % len(shared)]["key"], room["key"]] for i, room in enumerate(home_rooms)]
    return {
        "voyage_scenario": 1, "slug": f"{_slug(place)}-draft", "name": f"{place} (a scripted draft)",
        "start_date": "1930-06-01", "premise": _premise(ask.paragraph, place),
        "voice": {t.key: t.default for t in TEXTS},
        "phrasebook": {t.key: list(t.default) if t.is_list else t.default for t in PHRASES},
        "rooms": shared + home_rooms, "exits": exits, "personas": [_persona(p, place, rng) for p in people],
        "props": _props(people, shared, words, rng), "rungs": _rungs(),
    }


def _ascii(text: str) -> str:
    """Keys and slugs are ASCII letters, digits, '-' and '_' (Lötschental -> lotschental)."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in _ascii(text).lower()).strip("-")[:40] or "world"


def _premise(paragraph: str, place: str) -> str:
    return (f"{' '.join(paragraph.split())} You woke this morning at {place}, in a life that is not yours. Keep "
            "your cover, take an interest in others, and trust carefully. (This world is a scripted draft of the "
            "offline policy, built from the paragraph's own nouns, not written by a language model.)")


def _people(rng: random.Random, n: int) -> list[dict]:
    firsts, families = rng.sample(FIRST, n), rng.sample(FAMILY, len(FAMILY))
    return [{"key": f"{first.lower()}_{families[i % len(families)].lower()}",
             "display_name": f"{first} {families[i % len(families)]}", "spouse": None}
            for i, first in enumerate(firsts)]


def _shared_rooms(words: list[str], n: int) -> list[dict]:
    rooms, names = [], set()
    for i, word in enumerate(words):
        if len(rooms) == n:
            break
        name = f"The {word.title()} {SUFFIXES[i % len(SUFFIXES)]}"
        if name.casefold() in names:
            continue
        names.add(name.casefold())
        rooms.append({"key": f"{_slug(word).replace('-', '_')}_{len(rooms)}", "name": name, "deck": "Ground Level" if i % 2 == 0 else "Upper Level",
                      "scale": "vast" if i % 3 == 0 else "small", "ambient_noise": "high" if i % 4 == 1 else "low",
                      "private": False, "description": f"A shared place named for the {word}; people pass through "
                                                       f"it all day and notice who lingers."})
    return rooms


def _home_room(first_person: dict, i: int) -> dict:
    family = first_person["display_name"].split()[-1]
    return {"key": f"home_{i}", "name": f"{family} Quarters", "deck": "Upper Level", "scale": "small",
            "ambient_noise": "low", "private": True,
            "description": "A small private room with two narrow beds, a washstand and a door that locks."}


def _persona(p: dict, place: str, rng: random.Random) -> dict:
    wound = rng.choice(WOUNDS)
    return {"key": p["key"], "display_name": p["display_name"], "home": p["home"], "spouse": p["spouse"],
            "history": f"You are {p['display_name']}, who came to {place} some years ago and stayed.",
            "secret": f"Before you came here there was {wound}; nobody here knows it.",
            "fear": f"You fear that somebody here knows about {wound}.",
            "soul": ["Say little and watch much.", "Everyone here owes somebody something."]}


def _props(people: list[dict], shared: list[dict], words: list[str], rng: random.Random) -> list[dict]:
    props = []
    for i, p in enumerate(people):
        keepsake = KEEPSAKES[i % len(KEEPSAKES)]
        props.append({"name": f"{p['display_name'].split()[0]}'s {keepsake}", "kind": "name", "room": p["home"],
                      "owner": p["key"], "description": f"A {keepsake.lower()} with a name written inside it: "
                                                        f"{p['display_name']}."})
        props.append({"name": f"Unsigned Note No. {i + 1}", "kind": "fear", "room": shared[i % len(shared)]["key"],
                      "owner": p["key"], "description": "A folded note in a careful hand that speaks of something "
                                                        "its reader would rather forget."})
    for i, room in enumerate(shared):
        fixture = FIXTURES[i % len(FIXTURES)]
        props.append({"name": f"{room['name'][4:]} {fixture}", "kind": "scenery", "room": room["key"], "owner": None,
                      "description": f"A worn {fixture.lower()} that everyone here uses and nobody owns."})
    return props


def _rungs() -> list[dict]:
    named = ["own_name", "setting", "item_names", "people_names", "trust_labels"]
    return [
        {"level": 0, "name": "Panic", "reveals": "You know nothing: not your name, not this place, not these people.",
         "allowed_actions": list(ACTION_TYPES), "gate": None, "knows": []},
        {"level": 1, "name": "Name", "reveals": "You know your name now, and the names of the people around you.",
         "allowed_actions": list(ACTION_TYPES), "gate": {"prop": "name_prop", "min_ticks_since_previous": 0},
         "knows": list(named)},
        {"level": 2, "name": "Fear", "reveals": "The rest comes back: your history, your fear and your secret.",
         "allowed_actions": list(ACTION_TYPES), "gate": {"prop": "fear_prop", "min_ticks_since_previous": 120},
         "knows": named + ["history", "fear", "secret"]},
    ]
