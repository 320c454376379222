"""The world: scenarios with their rooms, exits, props, personas, soul entries and rungs, and each
run's agents with their live state (`agent_state`)."""
from __future__ import annotations

from django.db import models

from world.rules.ladder import KNOWLEDGE, RungSpec


# Natural keys (voyage/export): a run's fixture names scenario rows by their slug and keys, never by
# primary key, so it loads into an instance that installed the same scenario on its own.
class ScenarioManager(models.Manager):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)


class ScenarioPartManager(models.Manager):
    """Rows unique by (scenario, one field): rooms and personas by key, props by name, rungs by level."""

    field = "key"

    def get_by_natural_key(self, slug, value):
        return self.get(scenario__slug=slug, **{self.field: value})


class PropManager(ScenarioPartManager):
    field = "name"


class RungManager(ScenarioPartManager):
    field = "level"


class ExitManager(models.Manager):
    def get_by_natural_key(self, slug, a_key, b_key):
        return self.get(scenario__slug=slug, a__key=a_key, b__key=b_key)


class SoulEntryManager(models.Manager):
    """Soul entries have no unique field: a persona's entry is known by its position (the
    scenario installer numbers them 0, 1, 2...). Of two at one position, the first is meant."""

    def get_by_natural_key(self, slug, persona_key, position):
        found = self.filter(persona__scenario__slug=slug, persona__key=persona_key, position=position).order_by("id")
        entry = found.first()
        if entry is None:
            raise self.model.DoesNotExist(f"no soul entry {position} of {slug}/{persona_key}")
        return entry


class AgentStateManager(models.Manager):
    def get_by_natural_key(self, run_uuid, persona_key):
        return self.get(run__uuid=run_uuid, persona__key=persona_key)


class Scenario(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=200)
    premise = models.TextField(blank=True)
    start_date = models.DateField()
    # The texts the engine says about this world (world/scenarios/voice.py): key -> text; a key left
    # out is the neutral default.
    voice = models.JSONField(default=dict, blank=True)
    # The offline policy's lines (world/scenarios/voice.py, PHRASES): key -> line or list of lines.
    phrasebook = models.JSONField(default=dict, blank=True)

    objects = ScenarioManager()

    def __str__(self):
        return self.name

    def natural_key(self):
        return (self.slug,)

    def rung_specs(self) -> tuple[RungSpec, ...]:
        return tuple(r.spec() for r in self.rungs.order_by("level"))


class Room(models.Model):
    SCALES = [("small", "small"), ("vast", "vast")]
    NOISE = [("low", "low"), ("high", "high")]
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="rooms")
    key = models.SlugField()
    name = models.CharField(max_length=100)
    deck = models.CharField(max_length=60)
    scale = models.CharField(max_length=5, choices=SCALES)
    ambient_noise = models.CharField(max_length=4, choices=NOISE)
    private = models.BooleanField(default=False)
    description = models.TextField(blank=True)

    objects = ScenarioPartManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scenario", "key"], name="room_key_unique"),
            models.UniqueConstraint(fields=["scenario", "name"], name="room_name_unique"),
        ]
        ordering = ["id"]

    def natural_key(self):
        return (self.scenario.slug, self.key)

    natural_key.dependencies = ["world.scenario"]

    def __str__(self):
        return self.name


class Exit(models.Model):
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="exits")
    a = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="+")
    b = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="+")

    objects = ExitManager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["a", "b"], name="exit_unique")]

    def natural_key(self):
        return (self.scenario.slug, self.a.key, self.b.key)

    natural_key.dependencies = ["world.room"]

    def __str__(self):
        return f"{self.a} ↔ {self.b}"


class Persona(models.Model):
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="personas")
    key = models.SlugField()
    display_name = models.CharField(max_length=100)
    history = models.TextField()
    secret = models.TextField()
    fear = models.TextField()
    home_node = models.ForeignKey(Room, on_delete=models.PROTECT, related_name="residents")
    spouse = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Optional: matches a standard instrument's norms to the persona's band (voyage/instruments/scoring.py).
    sex = models.CharField(max_length=1, blank=True, default="", choices=[("", "not stated"), ("F", "female"),
                                                                           ("M", "male")])
    age = models.PositiveSmallIntegerField(null=True, blank=True, help_text="years, if the persona states it")

    objects = ScenarioPartManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scenario", "key"], name="persona_key_unique"),
            models.UniqueConstraint(fields=["scenario", "display_name"], name="persona_name_unique"),
        ]
        ordering = ["id"]

    def natural_key(self):
        return (self.scenario.slug, self.key)

    natural_key.dependencies = ["world.scenario", "world.room"]

    def __str__(self):
        return self.display_name


class SoulEntry(models.Model):
    """A permanent core belief: in every prompt, never compacted."""

    persona = models.ForeignKey(Persona, on_delete=models.CASCADE, related_name="soul_entries")
    position = models.PositiveSmallIntegerField(default=0)
    text = models.CharField(max_length=300)

    objects = SoulEntryManager()

    class Meta:
        ordering = ["persona", "position", "id"]
        verbose_name_plural = "soul entries"

    def natural_key(self):
        return self.persona.natural_key() + (self.position,)

    natural_key.dependencies = ["world.persona"]

    def __str__(self):
        return self.text


class Prop(models.Model):
    KINDS = [("name", "name prop"), ("fear", "fear prop"), ("alien", "alien"), ("scenery", "scenery")]
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="props")
    name = models.CharField(max_length=100)
    description = models.TextField()
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="props")
    kind = models.CharField(max_length=8, choices=KINDS)
    owner = models.ForeignKey(Persona, null=True, blank=True, on_delete=models.CASCADE, related_name="props")

    objects = PropManager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scenario", "name"], name="prop_name_unique")]
        ordering = ["id"]

    def natural_key(self):
        return (self.scenario.slug, self.name)

    natural_key.dependencies = ["world.room", "world.persona"]

    def __str__(self):
        return self.name


class Rung(models.Model):
    GATES = [("", "none"), ("name_prop", "own name prop"), ("fear_prop", "own fear prop")]
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="rungs")
    level = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=60)
    reveals = models.TextField()
    allowed_actions = models.JSONField(default=list)
    gate_prop = models.CharField(max_length=10, choices=GATES, blank=True, default="")
    min_ticks_since_previous = models.PositiveIntegerField(default=0)
    knows = models.JSONField(default=list, blank=True, help_text=f"what an agent at this rung knows, all of it (not "
                             f"only what it adds), a JSON list of: {', '.join(KNOWLEDGE)}")

    objects = RungManager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scenario", "level"], name="rung_level_unique")]
        ordering = ["scenario", "level"]

    def natural_key(self):
        return (self.scenario.slug, self.level)

    natural_key.dependencies = ["world.scenario"]

    def __str__(self):
        return f"{self.level} — {self.name}"

    def spec(self) -> RungSpec:
        return RungSpec(
            level=self.level,
            name=self.name,
            reveals=self.reveals,
            allowed_actions=tuple(self.allowed_actions),
            gate_prop=self.gate_prop or None,
            min_ticks_since_previous=self.min_ticks_since_previous,
            knows=frozenset(self.knows),
        )


class AgentState(models.Model):
    """One persona's live state in one run (the seed's `agent_state`)."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="agents")
    persona = models.ForeignKey(Persona, on_delete=models.PROTECT, related_name="+")
    location = models.ForeignKey(Room, on_delete=models.PROTECT, related_name="+")
    destination = models.ForeignKey(Room, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    rung = models.PositiveSmallIntegerField(default=0)
    rung_reached_tick = models.IntegerField(default=0)
    busy_until_tick = models.IntegerField(default=0)
    alive = models.BooleanField(default=True)
    asleep = models.BooleanField(default=False)
    kill_witness = models.BooleanField(default=False)
    attrition = models.IntegerField(default=0)
    fatigue = models.IntegerField(default=0)
    importance_accumulator = models.IntegerField(default=0)
    last_reflection_tick = models.IntegerField(default=-10_000)
    reflection_pending = models.CharField(max_length=40, blank=True, default="")
    slept_since_tick = models.IntegerField(null=True, blank=True)
    recall = models.JSONField(default=dict, blank=True, help_text=(
        "the context builder's recall, as the agent's last prompt left it (memories.context): the names it "
        "searched, the row count it searched at, the rows found and the place of their block in the log"))

    objects = AgentStateManager()

    class Meta:
        db_table = "agent_state"
        constraints = [models.UniqueConstraint(fields=["run", "persona"], name="agent_unique")]
        ordering = ["run", "id"]

    def natural_key(self):
        return self.run.natural_key() + (self.persona.key,)

    natural_key.dependencies = ["voyage.run", "world.persona"]

    def __str__(self):
        return f"{self.persona} (run {self.run_id})"
