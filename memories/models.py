"""What agents remember: the raw memory stream, its summaries, and the trust ledger."""
from __future__ import annotations

import uuid

from django.db import models


class MemoryKind(models.TextChoices):
    ACTION = "action", "own action"
    ACTION_FAIL = "action_fail", "ACTION_FAIL"
    HEARD = "heard", "HEARD"
    OBSERVED = "observed", "OBSERVED"
    SEEN = "seen", "seen"
    EXAMINED = "examined", "examined"
    RUNG = "rung", "rung reached"
    REFLECTION = "reflection", "reflection"
    BULLETIN = "bulletin", "daily bulletin"
    CUE = "cue", "cue"
    SUSPICION = "suspicion", "suspicion"
    PRESENCE = "presence", "mutual presence"
    VIOLENCE = "violence", "violence"
    SLEEP = "sleep", "sleep and waking"
    PLANTED = "planted", "planted (an intervention)"


class Memory(models.Model):
    """One raw row of an agent's memory stream. Never deleted."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("world.AgentState", on_delete=models.CASCADE, related_name="memories")
    tick = models.IntegerField()
    kind = models.CharField(max_length=12, choices=MemoryKind.choices)
    text = models.TextField()
    importance = models.PositiveSmallIntegerField(default=1)
    depth = models.PositiveSmallIntegerField(default=0)
    evidence = models.JSONField(default=list, blank=True)

    class Meta:
        db_table = "memory_stream"
        indexes = [models.Index(fields=["agent", "id"], name="memory_agent_id")]
        ordering = ["id"]

    def __str__(self):
        return f"[{self.tick}] {self.text[:60]}"


class SummaryManager(models.Manager):
    def get_by_natural_key(self, uuid_):
        return self.get(uuid=uuid_)


class MemorySummary(models.Model):
    """An LLM-written summary of a known range of an agent's raw rows (level 0), or an era summary
    folding earlier summaries (level 1+)."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("world.AgentState", on_delete=models.CASCADE, related_name="summaries")
    level = models.PositiveSmallIntegerField(default=0)
    first_row = models.BigIntegerField()
    last_row = models.BigIntegerField()
    row_count = models.PositiveIntegerField()
    tick = models.IntegerField()
    text = models.TextField()
    folded_into = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="folded")
    # The first tick whose prompts show it (and, once an era folds it, the era's shown_from is the
    # first that no longer does): its job's tick + SHOW_LAG (memories/job_records.py), so it shows
    # at the same tick whoever did the job and whenever; a hard compaction's, its own tick.
    shown_from = models.IntegerField(default=0)
    # A run's fixture names a summary by this (folded_into points at it); row ids differ between databases.
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)

    objects = SummaryManager()

    class Meta:
        db_table = "memory_summaries"
        ordering = ["agent", "first_row"]
        verbose_name_plural = "memory summaries"
        # Two workers compacting the same agent at once compute the same first row: the second
        # insert fails and its work is dropped (delivery is at-least-once).
        constraints = [models.UniqueConstraint(fields=["agent", "level", "first_row"], name="summary_range_unique")]
        indexes = [models.Index(fields=["run", "shown_from"], name="summary_run_shown")]

    def __str__(self):
        return f"L{self.level} rows {self.first_row}-{self.last_row}: {self.text[:60]}"

    def natural_key(self):
        return (str(self.uuid),)


class TrustEntryManager(models.Manager):
    def get_by_natural_key(self, run_uuid, persona_key, other_key):
        return self.get(run__uuid=run_uuid, agent__persona__key=persona_key, other__persona__key=other_key)


class TrustEntry(models.Model):
    """Per (agent, other agent): the current trust; every change is kept in TrustHistory."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("world.AgentState", on_delete=models.CASCADE, related_name="trust")
    other = models.ForeignKey("world.AgentState", on_delete=models.CASCADE, related_name="+")
    score = models.FloatField(default=0.0)
    label = models.CharField(max_length=40, default="stranger")
    emotional_tone = models.CharField(max_length=80, blank=True, default="")
    rationale = models.TextField(blank=True, default="")
    interaction_count = models.PositiveIntegerField(default=0)
    first_met_tick = models.IntegerField()
    updated_tick = models.IntegerField()
    # The tick of the last trust call about this pair: entries touched since are "dealt with".
    assessed_tick = models.IntegerField(default=-1)
    # Whether the agent has met the other while its rung knew people's names. Meetings before that
    # stay as perceived, with "someone (unknown)": until a meeting knowing names the entry is never
    # shown by name (no trust call, no label beside the name, not in a dream).
    known_by_name = models.BooleanField(default=False)

    objects = TrustEntryManager()

    class Meta:
        db_table = "trust_ledger"
        constraints = [models.UniqueConstraint(fields=["agent", "other"], name="trust_pair_unique")]
        verbose_name_plural = "trust ledger"

    def natural_key(self):
        return self.agent.natural_key() + (self.other.persona.key,)

    natural_key.dependencies = ["world.agentstate"]


class TrustHistory(models.Model):
    entry = models.ForeignKey(TrustEntry, on_delete=models.CASCADE, related_name="history")
    tick = models.IntegerField()
    score = models.FloatField()
    label = models.CharField(max_length=40)
    emotional_tone = models.CharField(max_length=80, blank=True, default="")
    rationale = models.TextField(blank=True, default="")

    class Meta:
        db_table = "trust_history"
        ordering = ["entry", "tick", "id"]
        verbose_name_plural = "trust history"


class Dream(models.Model):
    """A consolidation written while the agent slept 30+ sim-minutes: a third-person narrative of
    its recent past in three parts, shown to it on waking."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("world.AgentState", on_delete=models.CASCADE, related_name="dreams")
    tick = models.IntegerField(help_text="the tick the sleep began")
    first_row = models.BigIntegerField(null=True, blank=True)
    last_row = models.BigIntegerField(null=True, blank=True)
    identity = models.TextField(help_text="who it believes it is and what it wants")
    places = models.TextField(help_text="the rooms it knows")
    people = models.TextField(help_text="whom it trusts or suspects")
    rooms_known = models.JSONField(default=list, blank=True)
    # The first tick whose prompts show it: its job's tick + SHOW_LAG (memories/job_records.py).
    shown_from = models.IntegerField(default=0)

    class Meta:
        db_table = "memory_dreams"
        ordering = ["agent", "tick"]
        constraints = [models.UniqueConstraint(fields=["agent", "tick"], name="dream_once_per_sleep")]
        indexes = [models.Index(fields=["run", "shown_from"], name="dream_run_shown")]

    @property
    def text(self) -> str:
        return "\n\n".join(p for p in (self.identity, self.places, self.people) if p)

    def __str__(self):
        return f"dream at {self.tick}: {self.identity[:60]}"


class DiaryEntry(models.Model):
    """One dated entry per agent per day, written at nightfall."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("world.AgentState", on_delete=models.CASCADE, related_name="diary")
    date = models.DateField()
    day = models.PositiveIntegerField()
    tick = models.IntegerField()
    mood = models.CharField(max_length=60)
    location = models.ForeignKey("world.Room", on_delete=models.PROTECT, related_name="+")
    text = models.TextField()

    class Meta:
        db_table = "memory_diary"
        ordering = ["agent", "date"]
        verbose_name_plural = "diary entries"
        constraints = [models.UniqueConstraint(fields=["agent", "date"], name="diary_one_per_date")]

    def __str__(self):
        return f"{self.date} ({self.mood}): {self.text[:60]}"


class PendingMemoryJob(models.Model):
    """A memory job (compaction, dreams) that a committed tick asked for and that is not yet done:
    what `voyage_status` and run_voyage's `jobs_pending` count. The row is written in its tick's
    transaction, marked `queued` once the memory cluster has the job, claimed by the attempt that
    does it, and deleted in the transaction that writes the job's results (memories.attempts); a
    run that resumes hands over first the jobs its last process never got to (memories.jobs.unfinished).
    What the job is and reads is its record, memories.job_records."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=100, unique=True)  # the django-q2 task name
    # The job's record (memories.job_records): its kind ("" on rows older than this field), the tick
    # that asked for it, its agent (none for a tick's dreams), and its other fields by key.
    job = models.CharField(max_length=20, blank=True)
    tick = models.IntegerField(null=True, blank=True)
    agent = models.ForeignKey("world.AgentState", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    inputs = models.JSONField(default=dict)
    queued = models.BooleanField(default=False)
    queued_at = models.DateTimeField(auto_now_add=True)  # when it was last handed to the memory cluster
    # The attempt doing it (host:pid) and until when its lease holds (renewed after each model
    # call): memories.attempts takes a job over whose claimant is gone or whose lease ran out.
    claimed_by = models.CharField(max_length=80, blank=True, default="")
    lease_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "memory_jobs_pending"
