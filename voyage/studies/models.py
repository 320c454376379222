"""Studies: a named grid of runs (axes × seeds over a base configuration), each run linked to its
study and its cell."""
from __future__ import annotations

from django.db import models

from voyage.instruments.models import JudgeVerdict
from voyage.studies.grid import SEED, cell_label


class Study(models.Model):
    RUNNING, FINISHED, STOPPED = "running", "finished", "stopped"
    STATES = [(s, s) for s in (RUNNING, FINISHED, STOPPED)]

    name = models.CharField(max_length=120, unique=True)
    scenario = models.ForeignKey("world.Scenario", on_delete=models.PROTECT, related_name="+")
    target_ticks = models.PositiveIntegerField(help_text="ticks each run goes to (480 a day)")
    base = models.JSONField(default=dict, blank=True,
                            help_text="run fields every run shares unless an axis varies them (schedule, parameters)")
    axes = models.JSONField(default=dict, help_text='{"axis": ["value", ...]} in order; the seed axis last')
    budget_cost = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True,
                                      help_text="start no further run once the study's runs have cost this much")
    parallel = models.PositiveSmallIntegerField(default=1, help_text="runs on the worker at once, at most")
    state = models.CharField(max_length=10, choices=STATES, default=RUNNING)
    stop_reason = models.TextField(blank=True, default="", help_text="why the study started no further run")
    interventions = models.JSONField(default=dict, blank=True, help_text='the values of the "intervention" axis '
                                     'besides "none": name -> the intervention (kind, tick, room or agent, text...)')
    fork_tick = models.PositiveIntegerField(null=True, blank=True, help_text="with an intervention axis: the tick "
                                            "at which each base run is forked into its arms")
    surveys = models.JSONField(default=list, blank=True, help_text='questionnaires put to every run at a tick: '
                               '[{"tick": T, "questionnaire": {title, items}}] (voyage/studies/study_surveys.py)')
    judging = models.JSONField(default=list, blank=True, help_text='rubrics whose judge scores one day of every run, '
                               'each dimension a measure: [{"day": D, "rubric": name, "source", "text": its YAML}] '
                               '(voyage/studies/study_judging.py)')
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "studies"
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return self.name


class StudyRun(models.Model):
    """One combination of the grid: a run and the axis values that made it."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="members")
    run = models.OneToOneField("voyage.Run", on_delete=models.CASCADE, related_name="study_member")
    position = models.PositiveIntegerField(help_text="order in the grid; runs start in this order")
    cell = models.JSONField(help_text="the axis values of this run, seed included")
    started_at = models.DateTimeField(null=True, blank=True, help_text="when the study queued or ran it")
    is_base = models.BooleanField(default=False, help_text="the shared run its intervention arms fork from at the "
                                  "study's fork tick (not a cell of the grid: no rows in the results)")

    class Meta:
        ordering = ["study", "position"]
        constraints = [models.UniqueConstraint(fields=["study", "position"], name="study_run_position_unique")]

    def __str__(self):
        return f"{self.study} #{self.position}: {self.label}"

    @property
    def label(self) -> str:
        if self.is_base:
            return f"base of {cell_label(self.cell)}" if cell_label(self.cell) != "all runs" else "base"
        return cell_label(self.cell)

    @property
    def seed(self) -> str:
        return self.cell.get(SEED, "")


class Ranking(JudgeVerdict):
    """A study's arms ranked by `study rank` (voyage/studies/rank.py): Bradley–Terry scores with their
    bootstrap intervals, and the judge's own figures and verdict, shown together in the report."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="rankings")
    tick = models.PositiveIntegerField(help_text="the battery was asked at this tick")
    battery = models.CharField(max_length=300)
    arms = models.JSONField(help_text="best first: arm, score, ci_low, ci_high, rank, comparisons")
    checks = models.JSONField(help_text="order_flip_share, repeat_alpha, planted_detection, verdict_reasons, ...")

    class Meta:
        db_table = "study_rankings"
        ordering = ["-id"]

    def __str__(self):
        return f"{self.study} at tick {self.tick}: {self.verdict}"
