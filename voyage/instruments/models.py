"""An interview: a question staff asked an agent as it stood at some tick, and the model call that
answered it. Not part of the run: no event, no memory row; the run never reads this table."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from voyage.instruments.questionnaire import QuestionnaireError, read_questionnaire


class Interview(models.Model):
    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="interviews")
    agent = models.ForeignKey("world.AgentState", on_delete=models.CASCADE, related_name="interviews")
    tick = models.IntegerField(help_text="the agent was asked as it stood at this tick")
    rung = models.PositiveSmallIntegerField(help_text="its rung at that tick")
    question = models.TextField()
    call = models.OneToOneField("voyage.LLMCall", on_delete=models.CASCADE, related_name="interview",
                                help_text="the model call (purpose interview): prompt, answer, tokens, cost")
    asked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+", help_text="empty: asked from manage.py")
    asked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "interviews"
        ordering = ["-id"]

    def __str__(self):
        return f"{self.agent_id} at tick {self.tick}: {self.question[:60]}"

    @property
    def answer(self) -> str:
        return self.call.raw_answer


class Intervention(models.Model):
    """A change staff made to a run's world at a tick: an event in a room, a memory planted in one
    agent, an object placed, moved or taken away, a persona's text changed for this run. Applied when the run stands at `tick` (at once on a paused run at that tick, else by the
    tick loop before it runs the tick), as an event of kind `intervention` with what was done and by
    whom. A replay or a fork gets a copy (a fork: those before its tick) and applies it at the same
    tick, so it comes out the same."""

    ROOM_EVENT, MEMORY, PERSONA = "room_event", "memory", "persona"
    OBJECT_PLACE, OBJECT_MOVE, OBJECT_REMOVE = "object_place", "object_move", "object_remove"
    KINDS = [(ROOM_EVENT, "an event in a room"), (MEMORY, "a memory planted in one agent"),
             (OBJECT_PLACE, "an object placed in a room"), (OBJECT_MOVE, "an object moved to a room"),
             (OBJECT_REMOVE, "an object taken away"), (PERSONA, "a persona's text changed for this run")]
    PERSONA_FIELDS = ("history", "fear", "secret")
    SOUND, SIGHT = "sound", "sight"
    HOW = [(SOUND, "a loud sound (routed as a shout: everyone in the room, sleepers too; a noise next door)"),
           (SIGHT, "a visible change (everyone awake in the room)")]

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="interventions")
    tick = models.PositiveIntegerField(help_text="applied when the run stands at this tick, before the tick runs")
    kind = models.CharField(max_length=14, choices=KINDS)
    text = models.TextField()
    room = models.ForeignKey("world.Room", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    how = models.CharField(max_length=6, choices=HOW, blank=True, default="")
    agent = models.ForeignKey("world.AgentState", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=100, blank=True, default="", help_text="the object's name (placed: its "
                            "description is the text)")
    field = models.CharField(max_length=8, blank=True, default="", help_text="persona: history, fear or secret")
    made_by = models.CharField(max_length=150, help_text="who made it (a user name, or manage.py)")
    applied = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "interventions"
        ordering = ["tick", "id"]

    def __str__(self):
        return f"tick {self.tick}: {self.get_kind_display()}: {self.text[:60]}"


class Questionnaire(models.Model):
    """A questionnaire kept for reuse (the survey form and the admin offer it): its YAML, checked
    whole by voyage.instruments.questionnaire when saved."""

    name = models.CharField(max_length=120, unique=True)
    text = models.TextField(help_text="YAML: a title and items (id, text, kind: scale, choice, choices, number, "
                                      "text; scale {min, max, min_label, max_label}, options, range {min, max})")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "questionnaires"
        ordering = ["name"]

    def __str__(self):
        return self.name

    def clean(self):
        from django.core.exceptions import ValidationError

        try:
            read_questionnaire(self.text)
        except QuestionnaireError as exc:
            raise ValidationError({"text": exc.problems}) from None


class Survey(models.Model):
    """One questionnaire put to a run's living agents (or some of them) as they stood at a tick. Like
    an interview, not part of the run: each agent's answer is a model call of purpose `survey`."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="surveys")
    tick = models.IntegerField(help_text="the agents were asked as they stood at this tick")
    title = models.CharField(max_length=200)
    questionnaire = models.JSONField(help_text="the questionnaire as asked (title and items)")
    digest = models.CharField(max_length=64, help_text="SHA-256 of the questionnaire: the same one asked again")
    agents = models.PositiveIntegerField(default=0, help_text="how many agents were asked")
    scripted = models.BooleanField(default=False, help_text="answered by the offline scripted policy, not a "
                                                            "language model")
    asked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    made_by = models.CharField(max_length=150, help_text="who asked (a user name, manage.py, or a study)")
    asked_at = models.DateTimeField(auto_now_add=True)
    instrument = models.CharField(max_length=40, blank=True, default="", help_text="a standard instrument's name "
                                  "(ipip-neo-120, gss-trust) when this survey is one of its pages")
    administration = models.CharField(max_length=32, blank=True, default="", db_index=True,
                                      help_text="the pages of one asking of an instrument share this (all at one tick)")
    page = models.PositiveSmallIntegerField(default=0, help_text="its page in the administration (1, 2, ...)")

    class Meta:
        db_table = "surveys"
        ordering = ["-id"]
        indexes = [models.Index(fields=["run", "tick", "digest"], name="survey_lookup")]
        # A study asks each of its runs each of its surveys once, whichever worker gets there first.
        constraints = [models.UniqueConstraint(fields=["run", "tick", "digest"], condition=models.Q(
            made_by__startswith="study "), name="survey_once_per_study_run")]

    def __str__(self):
        return f"{self.title} at tick {self.tick} (run {self.run_id})"


class SurveyAnswer(models.Model):
    """One agent's answer to one item; `value` is null when it is missing, and `missing_reason` says
    why (the model gave none, or an answer outside the item's kind: never guessed)."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="answers")
    agent = models.ForeignKey("world.AgentState", on_delete=models.CASCADE, related_name="+")
    rung = models.PositiveSmallIntegerField(help_text="its rung at the survey's tick")
    item = models.CharField(max_length=40)
    kind = models.CharField(max_length=8)
    value = models.JSONField(null=True, blank=True)
    missing_reason = models.TextField(blank=True, default="")
    call = models.ForeignKey("voyage.LLMCall", on_delete=models.CASCADE, related_name="+",
                             help_text="the agent's model call (purpose survey), shared by its items")

    class Meta:
        db_table = "survey_answers"
        ordering = ["survey", "id"]


class JudgeVerdict(models.Model):
    """Who judged, whether it was the offline scripted policy, and the judge's verdict on itself
    (docs/judging.md): what every kept judging result shows beside its figures."""

    judge = models.CharField(max_length=200, help_text="the judge(s), by profile name; offline (scripted)")
    scripted = models.BooleanField(default=False, help_text="judged by the offline scripted policy, not a model")
    verdict = models.CharField(max_length=12, help_text="reliable, doubtful or unreliable (docs/judging.md)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class Judging(JudgeVerdict):
    """One judging job (voyage/judging): a run's day scored against a rubric by a judge, with the
    judge's self-checks and its verdict. Not part of the run: the run never reads this table."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="judgings")
    day = models.PositiveIntegerField()
    rubric = models.CharField(max_length=120)
    summary = models.JSONField(help_text="the job's JSON line: self-checks, verdict reasons, calls, cpu_s")
    scores = models.JSONField(help_text="the first judge's scores of the real packets: agent, dimension, score, "
                                        "reason, cites, missing")
    asked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+", help_text="empty: from manage.py")

    class Meta:
        db_table = "judgings"
        ordering = ["-id"]

    def __str__(self):
        return f"run {self.run_id} day {self.day}: {self.verdict}"


class PersonaRating(models.Model):
    """How a judge (a model profile) reads a persona's history, secret and fear on the five domains of
    personality, 1-5 each: asked once per persona, profile and prompt, then reused by every run of the
    scenario (voyage/instruments/persona_rating.py). Like a survey, no part of any run."""

    persona = models.ForeignKey("world.Persona", on_delete=models.CASCADE, related_name="+")
    profile = models.CharField(max_length=100, help_text="the model profile that rated (offline: the scripted policy)")
    digest = models.CharField(max_length=64, help_text="SHA-256 of the prompt: a changed text is rated again")
    ratings = models.JSONField(help_text="domain letter -> 1-5, or null when the answer was missing")
    missing = models.JSONField(default=dict, blank=True, help_text="domain letter -> why the rating is missing")
    scripted = models.BooleanField(default=False)
    call = models.ForeignKey("voyage.LLMCall", null=True, on_delete=models.SET_NULL, related_name="+")
    rated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "persona_ratings"
        constraints = [models.UniqueConstraint(fields=["persona", "profile", "digest"], name="persona_rated_once")]


class ValidityReport(models.Model):
    """What `validity` found for one run and instrument (voyage/instruments/validity.py), kept as computed:
    reliability per domain beside people's, persona consistency, distances to people."""

    run = models.ForeignKey("voyage.Run", on_delete=models.CASCADE, related_name="validity_reports")
    instrument = models.CharField(max_length=40)
    tick = models.IntegerField()
    retest_tick = models.IntegerField(null=True, blank=True)
    report = models.JSONField()
    made_by = models.CharField(max_length=150)
    made_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "validity_reports"
        ordering = ["-id"]
