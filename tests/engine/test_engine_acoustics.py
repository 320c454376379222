"""The acoustic matrix at engine level: whose memory gets the words. A noisy room masks a whisper
even when small; a shout carries into the quiet rooms next door as a shout without words; noisy
rooms next door swallow it."""
import pytest

from tests.engine_helpers import ScriptedGateway, act, cast_of, memories, name_of, neighbours, new_run, stage, step
from world.models import Room

pytestmark = pytest.mark.django_db

BUSY = {"busy_until_tick": 10_000}
WHISPER = "Meet me by the lifeboats. Remember: heron-1111."


@pytest.mark.parametrize("room_key, masked", [("galley", True), ("bridge", False)])
def test_a_noisy_room_masks_a_whisper_even_when_small(room_key, masked):
    room = Room.objects.get(scenario__slug="1912", key=room_key)
    assert room.scale == "small" and (room.ambient_noise == "high") == masked
    run = new_run()
    speaker, target, bystander = cast_of(3)
    stage(run, {speaker: {"room": room_key, "rung": 1}, target: {"room": room_key, "rung": 1, **BUSY},
                bystander: {"room": room_key, "rung": 1, **BUSY}})
    step(run, ScriptedGateway({speaker: act("communicate", name_of(target), volume="whisper", dialogue=WHISPER)}))
    assert memories(run, target) == [f'{name_of(speaker)} whispers to you: "{WHISPER}"']
    if masked:
        assert memories(run, bystander) == [f"{name_of(speaker)} whispered to {name_of(target)}."]
    else:
        assert memories(run, bystander) == [f'{name_of(speaker)} whispers to {name_of(target)}: "{WHISPER}"']


def test_a_shout_is_heard_next_door_without_its_words_and_noisy_rooms_swallow_it():
    """Galley (small, noisy): Scotland Road next door is quiet, the First Class Dining Saloon noisy."""
    assert {"scotland_road", "first_class_dining_saloon"} <= neighbours("galley")
    assert "bridge" not in neighbours("galley")
    noise = dict(Room.objects.filter(scenario__slug="1912").values_list("key", "ambient_noise"))
    assert (noise["scotland_road"], noise["first_class_dining_saloon"]) == ("low", "high")
    run = new_run()
    shouter, cook, next_door, next_door_asleep, noisy_next_door, far = cast_of(6)
    stage(run, {
        shouter: {"room": "galley", "rung": 1},
        cook: {"room": "galley", "rung": 1, **BUSY},
        next_door: {"room": "scotland_road", "rung": 1, **BUSY},
        next_door_asleep: {"room": "scotland_road", "asleep": True, **BUSY},  # a shout wakes the ear
        noisy_next_door: {"room": "first_class_dining_saloon", "rung": 1, **BUSY},
        far: {"room": "bridge", "rung": 1, **BUSY},
    })
    words = "Fire in the galley! (ember-2222)"
    step(run, ScriptedGateway({shouter: act("communicate", None, volume="shout", dialogue=words)}))
    assert memories(run, cook) == [f'{name_of(shouter)} shouts: "{words}"']
    assert memories(run, next_door) == ["Someone shouted nearby, in the Galley."]
    assert memories(run, next_door_asleep) == ["Someone shouted nearby, in the Galley."]
    assert memories(run, noisy_next_door) == []
    assert memories(run, far) == []
