"""Every world speaks its own language: a world of its own (the lighthouse of docs/examples, neither
a ship nor a sanatorium) runs a day with the offline model, and no memory row, event or recorded
prompt of it speaks of a ship unless its own file did; 1912 finds its own words where its file puts
them. One day-long run per world, shared by the assertions."""
import re
from pathlib import Path

import pytest

from memories.models import DiaryEntry, Dream, Memory, MemorySummary
from tests.memory_helpers import jobs_inline
from voyage.engine.runner import advance
from voyage.models import Event, LLMCall, Run
from voyage.runs.config import configure_run
from world.models import Scenario
from world.scenarios.files import import_yaml, shipped_file
from world.time import TICKS_PER_DAY

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "lighthouse.yaml"
SHIP_WORDS = ("ship", "aboard", "steward", "cabin", "deck", "voyage", "liner", "New York", "purser")


def texts_of(run) -> dict[str, list[str]]:
    """Everything the run wrote that an agent or a reader sees: memory rows, summaries, dreams,
    diaries, events, and every recorded prompt (decompressed) and answer."""
    return {
        "memory": list(Memory.objects.filter(run=run).values_list("text", flat=True)),
        "summary": list(MemorySummary.objects.filter(run=run).values_list("text", flat=True)),
        "dream": [" ".join(d) for d in Dream.objects.filter(run=run).values_list("identity", "places", "people")],
        "diary": list(DiaryEntry.objects.filter(run=run).values_list("text", flat=True)),
        "event": list(Event.objects.filter(run=run).values_list("text", flat=True)),
        "prompt": ["\n\n".join(m["content"] for m in c.prompt) + "\n\n" + c.raw_answer
                   for c in LLMCall.objects.filter(run=run)],
    }


def words_in(text: str, words) -> set[str]:
    return {w.lower() for w in words if re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE)}


def day_run(scenario, cast=None):
    with jobs_inline():
        run = configure_run(scenario, cast=cast, days=1, seed=3)
        advance(run, TICKS_PER_DAY)
    return Run.objects.get(pk=run.pk)


@pytest.fixture(scope="module")
def lighthouse(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        scenario = import_yaml(EXAMPLE.read_text(encoding="utf-8"))
        run = day_run(scenario)
        yield run, texts_of(run)
        Run.objects.filter(pk=run.pk).delete()
        from world.scenarios.files import delete_scenario

        delete_scenario(scenario)


@pytest.fixture(scope="module")
def voyage_1912(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        scenario = Scenario.objects.get(slug="1912")
        couples = [p for p in scenario.personas.filter(spouse__isnull=False).order_by("key")][:2]
        cast = sorted({p.key for p in couples} | {p.spouse.key for p in couples})
        cast += list(scenario.personas.filter(spouse__isnull=True).order_by("key").values_list("key", flat=True)[:2])
        run = day_run(scenario, cast)
        yield run, texts_of(run)
        Run.objects.filter(pk=run.pk).delete()


@pytest.mark.django_db
def test_the_docs_example_is_the_file_the_docs_show():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "admin-and-scenarios.md").read_text(encoding="utf-8")
    assert "docs/examples/lighthouse.yaml" in docs
    assert "wind_down_cue: 'The principal keeper rings the hand bell" in docs  # its voice, quoted


@pytest.mark.django_db
def test_a_world_of_its_own_never_hears_of_a_ship(lighthouse):
    run, texts = lighthouse
    own = words_in(EXAMPLE.read_text(encoding="utf-8").split("\nvoice:", 1)[1], SHIP_WORDS)  # what its file wrote
    assert all(texts.values()), {k: len(v) for k, v in texts.items()}
    for where, rows in texts.items():
        for text in rows:
            assert not words_in(text, SHIP_WORDS) - own, (where, words_in(text, SHIP_WORDS) - own, text[:3000])


@pytest.mark.django_db
def test_a_world_of_its_own_hears_its_own_words(lighthouse):
    run, texts = lighthouse
    events = " ".join(texts["event"])
    assert "the lamp is lit for the night and the hand bell rings" in events
    assert "the rock sleeps under the beam until" in events
    memory = " ".join(texts["memory"])
    assert "The principal keeper rings the hand bell" in memory and "The journal read at breakfast:" in memory
    assert "you share these quarters" not in memory  # Angus and Mairi are spouses: theirs is the spouses' bond
    prompts = " ".join(texts["prompt"])
    assert "The lamp is lit: go to your quarters before the first watch is set." in prompts
    assert "You keep the station journal" in prompts and "The Station Journal" in prompts


@pytest.mark.django_db
def test_1912_finds_its_own_words_where_its_file_puts_them(voyage_1912):
    run, texts = voyage_1912
    memory = " ".join(texts["memory"])
    assert "A steward murmurs that the lamps will be dimmed soon: retire to your cabin within" in memory
    assert "you share this cabin" in memory or "belong together" in memory
    events = " ".join(texts["event"])
    assert "the stewards begin dimming the lamps" in events and "all aboard sleep until" in events
    prompts = " ".join(texts["prompt"])
    assert "The stewards are dimming the lamps: retire to your cabin before nightfall." in prompts
    assert "You write the ship's gossip sheet" in prompts
    assert words_in(memory + prompts, ("steward", "cabin")) == {"steward", "cabin"}


def test_the_docs_list_every_key_with_its_placeholders_and_default():
    from world.scenarios.voice import PHRASES, TEXTS

    docs = (Path(__file__).resolve().parents[2] / "docs" / "admin-and-scenarios.md").read_text(encoding="utf-8")
    for spec in TEXTS + PHRASES:
        row = next(line for line in docs.splitlines() if line.startswith(f"| `{spec.key}`"))
        for field in spec.fields:
            assert f"`{{{field}}}`" in row, spec.key
        for default in spec.default if spec.is_list else (spec.default,):
            assert f"“{default}”" in row, spec.key
