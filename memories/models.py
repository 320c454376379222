"""What agents remember: the raw memory stream, its summaries, and the trust ledger."""
from __future__ import annotations

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

    class Meta:
        db_table = "memory_summaries"
        ordering = ["agent", "first_row"]
        verbose_name_plural = "memory summaries"


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

    class Meta:
        db_table = "trust_ledger"
        constraints = [models.UniqueConstraint(fields=["agent", "other"], name="trust_pair_unique")]
        verbose_name_plural = "trust ledger"


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
