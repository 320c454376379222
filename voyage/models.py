"""Runs and their parameters, model profiles, the event log and the record of every model call."""
from __future__ import annotations

import hashlib
import re
import secrets
import uuid

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.db import models

from voyage.gateway import providers, structured
from voyage.gateway.base import PURPOSES
from voyage.gateway.prompts import decompress_messages
from world.time import DEFAULT_REFLECTION_TICKS, TICKS_PER_DAY

ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
# Memory ablations (Run.memory; what each turns off: memories/ablation.py).
MEMORY_PARTS = ("summaries", "reflection", "dreams", "trust", "recall")
MEMORY_SETTINGS = [(name, name) for name in ("full", *(f"no_{part}" for part in MEMORY_PARTS), "hot_window_only")]
MAX_RUN_AHEAD = 8  # ticks an agent may run ahead of the slowest one in the simultaneous schedule


def reasoning_on_default():
    return {"reasoning": {"enabled": True}}


def reasoning_off_default():
    return {"reasoning": {"enabled": False}}


INSTRUMENT_PAGE_SIZE = 30  # items of a standard instrument a call, by default
INSTRUMENT_PAGE_MAX = 50  # a questionnaire's most items (voyage.instruments.questionnaire.MAX_ITEMS)


class ModelProfileManager(models.Manager):
    def get_by_natural_key(self, name):
        return self.get(name=name)


class RunManager(models.Manager):
    def get_by_natural_key(self, uuid_):
        return self.get(uuid=uuid_)


class ModelProfile(models.Model):
    """How to reach a model. The API key is never stored: only the name of the variable holding it."""

    OFFLINE = "offline"
    OPENAI = "openai"
    KINDS = [(OFFLINE, "offline scripted policy (not an LLM)"), (OPENAI, "OpenAI-compatible endpoint")]
    name = models.CharField(max_length=80, unique=True)
    kind = models.CharField(max_length=10, choices=KINDS, default=OFFLINE)
    # Who serves it (voyage.gateway.providers): choosing one fills in the fields below it needs.
    provider = models.CharField(max_length=20, choices=providers.CHOICES, default=providers.OTHER,
                                help_text="choosing one fills in its base URL, structured-output form and schema "
                                          "dialect, reasoning switches, cached-token field and request body; "
                                          "every field stays editable")
    base_url = models.URLField(blank=True, default="", help_text="e.g. https://openrouter.ai/api/v1, "
                               "http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama)")
    model = models.CharField(max_length=120, default="google/gemma-4-31b-it")
    api_key_env = models.CharField(max_length=80, blank=True, default="", help_text="the NAME of the environment "
                                   "variable holding the key (e.g. OPENROUTER_API_KEY), never the key itself; "
                                   "blank for endpoints that need none")
    # How the endpoint takes a JSON schema for an action call (voyage.gateway.structured).
    NO_JSON_MODE, JSON_OBJECT, JSON_SCHEMA, JSON_OBJECT_SCHEMA = structured.FORMS
    STRUCTURED_OUTPUTS = [
        (NO_JSON_MODE, "none: no JSON mode; the prompt asks for JSON and it is extracted from the answer"),
        (JSON_OBJECT, 'json_object: response_format {"type": "json_object"}, no schema'),
        (JSON_SCHEMA, 'json_schema: {"type": "json_schema", "json_schema": {name, schema, strict}} '
                      "(OpenAI, vLLM, OpenRouter, llama.cpp's llama-server)"),
        (JSON_OBJECT_SCHEMA, 'json_object_schema: {"type": "json_object", "schema": ...} (llama-cpp-python\'s server)'),
    ]
    structured_output = models.CharField(
        max_length=20, choices=STRUCTURED_OUTPUTS, default=JSON_OBJECT,
        help_text="how the endpoint takes a JSON answer; with a schema form every action call carries the "
                  "six-key schema built for that agent and turn (what its rung allows, whom it can name)")
    schema_dialect = models.CharField(
        max_length=16, default="anyof",
        choices=[("anyof", "anyof: one object per action (grammar engines: llama.cpp, vLLM, SGLang, Ollama, LM Studio)"),
                 ("openai_strict", "openai_strict: the six-key object with nullable enums (OpenAI's strict rules)")],
        help_text="the JSON-schema dialect of the action schema sent with a schema form")
    extra_body = models.JSONField(default=dict, blank=True, help_text="merged into every request body, e.g. "
                                  'OpenRouter\'s {"provider": {"require_parameters": true}}')
    cached_tokens_at = models.CharField(max_length=80, blank=True, default=providers.USAGE_CACHED,
                                        help_text="where the answer reports cached prompt tokens (a dotted path); "
                                                  "blank where the endpoint reports none")
    reasoning = models.JSONField(default=dict, blank=True, help_text='per call purpose, true/false, e.g. '
                                 '{"action": false, "trust": true}; purposes not named use the defaults '
                                 '(action off; trust, compaction and era on; others off)')
    reasoning_on = models.JSONField(default=reasoning_on_default, blank=True,
                                    help_text="merged into the request body when reasoning is on (OpenRouter's form "
                                              "by default; e.g. {\"chat_template_kwargs\": {\"enable_thinking\": true}})")
    reasoning_off = models.JSONField(default=reasoning_off_default, blank=True,
                                     help_text="merged into the request body when reasoning is off ({} sends nothing)")
    temperature = models.FloatField(default=0.8)
    max_tokens = models.PositiveIntegerField(default=800)
    timeout_s = models.FloatField(default=60, help_text="seconds per attempt")
    retries = models.PositiveSmallIntegerField(default=3, help_text="further attempts after the first fails")
    concurrency = models.PositiveSmallIntegerField(default=16, help_text="calls in flight at once, at most")
    instrument_page_size = models.PositiveSmallIntegerField(
        default=INSTRUMENT_PAGE_SIZE, help_text=f"items of a standard instrument (the IPIP-NEO-120's 120) asked in one "
        f"call when this profile answers: 1-{INSTRUMENT_PAGE_MAX}; a small model keeps fewer answers in one call "
        f"well (SmolLM2: 5-10). A command's --page-size overrides it")
    price_in_per_m = models.DecimalField(max_digits=10, decimal_places=4, default=0,
                                         help_text="price per million prompt tokens")
    price_out_per_m = models.DecimalField(max_digits=10, decimal_places=4, default=0,
                                          help_text="price per million completion tokens (reasoning included)")

    objects = ModelProfileManager()

    def __str__(self):
        return self.name

    def natural_key(self):
        return (self.name,)

    @classmethod
    def for_provider(cls, provider_name: str, **fields) -> "ModelProfile":
        """An unsaved OpenAI-compatible profile with `provider_name`'s defaults, `fields` over them (a base URL,
        a model...). ValueError names an unknown provider."""
        defaults = providers.provider(provider_name).profile_fields()
        if not fields.get("base_url") and not defaults["base_url"]:
            defaults.pop("base_url")
        return cls(kind=cls.OPENAI, **{**defaults, **{k: v for k, v in fields.items() if v is not None}})

    def clean(self):
        errors = {}
        if self.kind == self.OPENAI and not self.base_url:
            errors["base_url"] = "an OpenAI-compatible profile needs a base URL"
        if self.api_key_env and not re.match(ENV_NAME, self.api_key_env):
            errors["api_key_env"] = "give the name of an environment variable (letters, digits, _), not a key"
        if not isinstance(self.reasoning, dict):
            errors["reasoning"] = 'a JSON object of purpose: true/false, e.g. {"action": false}'
        else:
            unknown = sorted(set(self.reasoning) - set(PURPOSES))
            if unknown:
                errors["reasoning"] = f"unknown purpose(s) {', '.join(unknown)}; known: {', '.join(PURPOSES)}"
            elif any(not isinstance(v, bool) for v in self.reasoning.values()):
                errors["reasoning"] = "each purpose takes true or false"
        for name in ("reasoning_on", "reasoning_off", "extra_body"):
            if not isinstance(getattr(self, name), dict):
                errors[name] = "a JSON object merged into the request body"
        if self.timeout_s is not None and self.timeout_s <= 0:
            errors["timeout_s"] = "must be more than 0"
        if self.concurrency is not None and self.concurrency < 1:
            errors["concurrency"] = "at least 1"
        if self.instrument_page_size is not None and not 1 <= self.instrument_page_size <= INSTRUMENT_PAGE_MAX:
            errors["instrument_page_size"] = f"1 to {INSTRUMENT_PAGE_MAX} items a call"
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            errors["temperature"] = "between 0 and 2"
        for name in ("price_in_per_m", "price_out_per_m"):
            value = getattr(self, name)
            if value is not None and value < 0:
                errors[name] = "cannot be negative"
        if errors:
            raise ValidationError(errors)


class Run(models.Model):
    QUEUED, RUNNING, PAUSED, FINISHED, FAILED = "queued", "running", "paused", "finished", "failed"
    STATES = [(s, s) for s in (QUEUED, RUNNING, PAUSED, FINISHED, FAILED)]
    SEQUENTIAL, SIMULTANEOUS = "sequential", "simultaneous"
    SCHEDULES = [(SEQUENTIAL, SEQUENTIAL), (SIMULTANEOUS, SIMULTANEOUS)]

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=120, blank=True, default="")
    scenario = models.ForeignKey("world.Scenario", on_delete=models.PROTECT, related_name="runs")
    profile = models.ForeignKey(ModelProfile, null=True, blank=True, on_delete=models.PROTECT, related_name="runs")
    seed = models.BigIntegerField(default=1912)
    schedule = models.CharField(max_length=12, choices=SCHEDULES, default=SEQUENTIAL)
    run_ahead = models.PositiveSmallIntegerField(
        default=2, validators=[MaxValueValidator(MAX_RUN_AHEAD)],
        help_text=f"simultaneous schedule: ticks an agent may run ahead of the slowest agent (0–{MAX_RUN_AHEAD}; "
                  f"0 = lock-step); the transcript is the same for every value; the sequential schedule ignores it")
    malformed_rate = models.FloatField(default=0.0, help_text="offline model: share of malformed answers")
    target_ticks = models.PositiveIntegerField(default=TICKS_PER_DAY)
    replay_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="replays",
                                  help_text="answers come from this run's recorded calls instead of a model")
    forked_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="forks",
                                    help_text="this run replayed that run's first fork_tick ticks, then went on live")
    fork_tick = models.PositiveIntegerField(null=True, blank=True)
    budget_tokens = models.PositiveBigIntegerField(null=True, blank=True,
                                                   help_text="pause when the run's calls have used this many tokens")
    budget_cost = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True,
                                      help_text="pause when the run's calls have cost this much")

    # Parameters: the hot window and the compaction thresholds (memories/thresholds.py), and the seeds' defaults.
    hot_memory_limit = models.PositiveIntegerField(default=50)
    compaction_memory_count = models.PositiveIntegerField(default=200)
    compaction_soft_chars = models.PositiveIntegerField(default=160_000)
    compaction_hard_chars = models.PositiveIntegerField(default=800_000)
    reflection_ticks = models.JSONField(default=list, blank=True, help_text="ticks of the day; default 15, 30, 45, 60")
    reflection_cooldown = models.PositiveIntegerField(default=10)
    importance_threshold = models.PositiveIntegerField(default=100)
    attrition_threshold = models.PositiveIntegerField(default=40, help_text="ticks alone awake in a private room")
    fatigue_warning = models.PositiveIntegerField(default=60)
    fatigue_limit = models.PositiveIntegerField(default=80)
    SEED_LAYOUT, CACHED_LAYOUT = "seed", "cached"
    CONTEXT_LAYOUTS = [(SEED_LAYOUT, "seed: the hot window newest first, after the situation"),
                       (CACHED_LAYOUT, "cached: a chronological log of recent rows, then what changes every turn "
                                       "(consecutive prompts share all but their tail: provider prefix caching)")]
    context_layout = models.CharField(max_length=8, choices=CONTEXT_LAYOUTS, default=SEED_LAYOUT)
    EXAMPLE_ANSWERS = [("rotating", "rotating: a different valid answer per agent and turn, naming what is here "
                                    "(small models keep the form by it, and copy it)"),
                       ("neutral", "neutral: the same answer every turn, naming no one (a word to the room)"),
                       ("none", "none: the allowed actions only, no example")]
    example_answer = models.CharField(max_length=8, choices=EXAMPLE_ANSWERS, default="rotating",
                                      help_text="the example answer each action prompt ends with")
    memory = models.CharField(
        max_length=16, choices=MEMORY_SETTINGS, default="full",
        help_text="memory ablation: full, or a part switched off (no_summaries, no_reflection, no_dreams, no_trust, "
                  "no_recall), or hot_window_only (all of them off); memories/ablation.py")
    profile_routes = models.JSONField(
        default=dict, blank=True,
        help_text='model profiles by call group or agent, e.g. {"memory": "strong", "instruments": "strong", '
                  '"agent:PERSONA_KEY": "strong"}; groups: actions, memory (compaction, eras, dreams, diary, trust, '
                  'reflection, importance, bulletin), instruments (interviews, surveys); the main profile answers '
                  'the rest (voyage/gateway/routes.py)')

    # Progress: `tick` is the number of committed ticks; it moves in the same transaction as their writes.
    tick = models.PositiveIntegerField(default=0)
    state = models.CharField(max_length=10, choices=STATES, default=QUEUED)
    error = models.TextField(blank=True, default="")
    pause_reason = models.TextField(blank=True, default="", help_text="why the run paused itself (e.g. its budget)")
    claimed_by = models.CharField(max_length=80, blank=True, default="")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # Written by the engine at each tick's commit (simultaneous schedule): how far each agent is
    # ahead of the slowest agent, {"now": {persona key: ticks}, "sum": float, "n": int, "max": int}
    # (sum / n is the mean lead over every sample). Empty until the engine writes it.
    leads = models.JSONField(default=dict, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = RunManager()

    def __str__(self):
        return self.name or f"Run {self.pk}"

    def natural_key(self):
        return (str(self.uuid),)

    @classmethod
    def layout_for(cls, profile: "ModelProfile | None") -> str:
        """The prompt layout of a new run that chose none. A real model's prompts are laid out for the
        provider's prefix cache: the same context reduction, with 0.85 of each prompt repeating the
        agent's previous one instead of 0.37 (docs/real-models.md). The offline policy keeps the
        seed's layout, so its transcripts stay as they were."""
        return cls.CACHED_LAYOUT if profile is not None and profile.kind == ModelProfile.OPENAI else cls.SEED_LAYOUT

    @property
    def reflection_schedule(self) -> tuple[int, ...]:
        return tuple(self.reflection_ticks or DEFAULT_REFLECTION_TICKS)


class Event(models.Model):
    """The transaction log: every action (with success or failure), every observation delivered,
    every state transition. Transcripts, digests and dashboards read it."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    tick = models.IntegerField()
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=20)
    actor = models.ForeignKey("world.AgentState", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    room = models.ForeignKey("world.Room", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    text = models.TextField(blank=True, default="")
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "event_log"
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="event_seq_unique")]
        indexes = [models.Index(fields=["run", "tick"], name="event_run_tick")]
        ordering = ["run", "seq"]

    def __str__(self):
        return f"[{self.tick}.{self.seq}] {self.kind}: {self.text[:60]}"


class LLMCall(models.Model):
    """One model call with its exact prompt (zlib-compressed JSON messages) and answer."""

    OK, ACTION_FAIL, ERROR, SKIPPED = "ok", "action_fail", "error", "skipped"
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="llm_calls")
    agent = models.ForeignKey("world.AgentState", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    tick = models.IntegerField()
    purpose = models.CharField(max_length=16)
    prompt_z = models.BinaryField()
    raw_answer = models.TextField(blank=True, default="")
    answered = models.BooleanField(default=True, help_text="false: the model gave no answer (see error)")
    error = models.TextField(blank=True, default="", help_text="why the model gave no answer, after its retries")
    outcome = models.CharField(max_length=12, default=OK)
    detail = models.TextField(blank=True, default="")
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    reasoning_tokens = models.PositiveIntegerField(default=0)
    cached_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.FloatField(default=0)
    attempts = models.PositiveSmallIntegerField(default=1)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    recalled = models.JSONField(default=list, blank=True,
                                help_text="ids of the memory rows the context builder recalled into this prompt")
    profile = models.CharField(max_length=80, blank=True, default="",
                               help_text="the model profile that answered (empty: the offline policy)")
    # A memory job's call is saved as it is made, abandoned until its attempt commits the job's
    # results: a call whose attempt was killed stays abandoned (paid for, but nothing was built on it).
    abandoned = models.BooleanField(default=False)

    class Meta:
        db_table = "llm_calls"
        indexes = [
            models.Index(fields=["run", "tick", "agent", "purpose"], name="llm_call_lookup"),
            # Covers the dashboards' usage figures: on SQLite, reading a row's columns after its
            # prompt blob walks the blob's overflow pages, ten times slower than this index.
            models.Index(fields=["run", "purpose", "agent", "latency_ms", "prompt_tokens", "completion_tokens", "cost",
                                 "answered", "outcome", "attempts"], name="llm_call_usage"),
        ]
        ordering = ["id"]
        verbose_name = "LLM call"

    @property
    def prompt(self) -> list[dict]:
        return decompress_messages(bytes(self.prompt_z))


class ApiToken(models.Model):
    """A token for the API, made in the admin and shown once: only its SHA-256 is stored. It acts as
    its user (who must be staff) until revoked."""

    PREFIX = "vyg_"
    name = models.CharField(max_length=80, help_text="what it is for, e.g. the notebook that uses it")
    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="api_tokens")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    hint = models.CharField(max_length=12, editable=False, help_text="the token's first characters, to tell it apart")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API token"

    def __str__(self):
        return f"{self.name} ({self.hint}…)"

    @staticmethod
    def digest_of(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def issue(self) -> str:
        """A new secret for this (unsaved) token; the caller shows it once and it is never stored."""
        token = self.PREFIX + secrets.token_urlsafe(32)
        self.digest, self.hint = self.digest_of(token), token[:8]
        return token


class DraftJob(models.Model):
    """A world drafted from a paragraph on the worker (voyage/drafting/jobs.py), or a draft as the
    storyteller edited it, checked, proved by its day and installed there. The worker claims it
    with a conditional update (queued -> drafting), so a task delivered twice drafts once; it ends
    done (the report is here, whatever it says) or failed (no report: the worker died, ran out of
    time, or the pipeline raised). Nothing is installed unless the report says so."""

    QUEUED, DRAFTING, DONE, FAILED = "queued", "drafting", "done", "failed"
    STATES = [(s, s) for s in (QUEUED, DRAFTING, DONE, FAILED)]
    DRAFT, CHECK = "draft", "check"
    KINDS = [(DRAFT, "draft from a paragraph"), (CHECK, "check and install an edited draft")]

    kind = models.CharField(max_length=5, choices=KINDS, default=DRAFT)
    state = models.CharField(max_length=8, choices=STATES, default=QUEUED)
    step = models.CharField(max_length=120, blank=True, default="", help_text="what the worker is doing now")
    paragraph = models.TextField()
    people = models.PositiveSmallIntegerField()
    rooms = models.PositiveSmallIntegerField()
    repair_rounds = models.PositiveSmallIntegerField(default=0)
    budget = models.FloatField(default=0.0, help_text="dollars at most, at the profile's prices")
    profile = models.CharField(max_length=120, blank=True, default="", help_text="blank: the offline policy")
    projection = models.CharField(max_length=300, blank=True, default="")
    install = models.BooleanField(default=False, help_text="install the draft if it passes everything")
    text = models.TextField(blank=True, default="", help_text="the draft's file: edited (check) or drafted (draft)")
    report = models.JSONField(default=list, blank=True, help_text="the report's lines")
    summary = models.JSONField(null=True, blank=True, help_text="the report's JSON line, parsed")
    error = models.TextField(blank=True, default="")
    installed_slug = models.CharField(max_length=50, blank=True, default="")
    claimed_by = models.CharField(max_length=80, blank=True, default="")
    created_by = models.ForeignKey("auth.User", null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="draft_jobs")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self):
        return f"draft job {self.pk} ({self.kind}, {self.state})"

    @property
    def over(self) -> bool:
        return self.state in (self.DONE, self.FAILED)
