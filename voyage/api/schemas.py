"""What the API returns and takes. Nothing here carries an API key or a token: a model profile is
named, never shown."""
from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal, Optional
from uuid import UUID

from ninja import Field, Schema
from pydantic import ConfigDict

from voyage.models import MAX_RUN_AHEAD

MAX_ID = 2**53  # ids and cursors: well inside every database's integer range
MAX_TICKS = 10_000_000


class Page(Schema):
    """A page of a cursor-paginated list: ask again with after=next for the rest (null: no more yet)."""

    next: Optional[int] = Field(None, description="pass as `after` for the next page")


class RunOut(Schema):
    id: int
    uuid: UUID
    name: str
    scenario: str
    state: str
    tick: int
    target_ticks: int
    day: int
    clock: str = Field(description="the simulated date and time after the committed ticks")
    seed: int
    schedule: str
    profile: Optional[str] = Field(None, description="the model profile's name; null: the offline scripted policy")
    provider: Optional[str] = Field(None, description="who serves the profile's model (openai, vllm, ollama, ...; "
                                                      "docs/providers.md); null: the offline scripted policy")
    replay_of: Optional[int] = None
    forked_from: Optional[int] = None
    fork_tick: Optional[int] = None
    error: str
    pause_reason: str
    created_at: datetime
    parameters: dict[str, Any]
    usage: dict[str, Any] = Field(description="totals over the run's model calls: calls, tokens, cost, retries...")


class RunPage(Page):
    items: list[RunOut]


class Body(Schema):
    """A request body: JSON types as the schema says them (no "5" for 5, no 5.0 for an integer)."""

    model_config = ConfigDict(strict=True, extra="forbid")


class Parameters(Body):
    malformed_rate: Optional[float] = Field(None, ge=0, le=1)
    hot_memory_limit: Optional[int] = Field(None, ge=0, le=100_000)
    compaction_memory_count: Optional[int] = Field(None, ge=0, le=10_000_000)
    compaction_soft_chars: Optional[int] = Field(None, ge=0, le=2_000_000_000)
    compaction_hard_chars: Optional[int] = Field(None, ge=0, le=2_000_000_000)
    reflection_ticks: Optional[list[int]] = None
    reflection_cooldown: Optional[int] = Field(None, ge=0, le=MAX_TICKS)
    importance_threshold: Optional[int] = Field(None, ge=0, le=2_000_000_000)
    attrition_threshold: Optional[int] = Field(None, ge=0, le=MAX_TICKS)
    fatigue_warning: Optional[int] = Field(None, ge=0, le=100_000)
    fatigue_limit: Optional[int] = Field(None, ge=0, le=100_000)
    budget_tokens: Optional[int] = Field(None, ge=1, le=2**62)
    budget_cost: Optional[float] = Field(None, gt=0, le=10**7)
    context_layout: Optional[Literal["seed", "cached"]] = None
    example_answer: Optional[Literal["rotating", "neutral", "none"]] = None
    run_ahead: Optional[int] = Field(None, ge=0, le=MAX_RUN_AHEAD,
                                     description="simultaneous schedule: ticks an agent may run ahead of the slowest "
                                                 "agent (0: lock-step); the transcript is the same for every value")
    profile_routes: Optional[dict[str, str]] = Field(
        None, description='model profiles by call group or agent: {"memory": NAME, "instruments": NAME, '
                          '"actions": NAME, "agent:PERSONA_KEY": NAME}; the main profile answers the rest')


class RunIn(Body):
    scenario: str = Field("1912", max_length=50, description="the scenario's slug")
    cast: Optional[list[str]] = Field(None, description="persona keys; null: every persona of the scenario")
    profile: Optional[str] = Field(None, max_length=80, description="a model profile's name; null: offline")
    schedule: Literal["sequential", "simultaneous"] = "sequential"
    seed: int = Field(1912, ge=-(2**62), le=2**62)
    ticks: Optional[int] = Field(None, ge=1, le=MAX_TICKS, description="length in ticks (or give days)")
    days: Optional[float] = Field(None, gt=0, le=20_000)
    name: str = Field("", max_length=120)
    parameters: Parameters = Field(default_factory=Parameters)


class CloneIn(Body):
    seed: Optional[int] = Field(None, ge=-(2**62), le=2**62, description="another seed; null: the same")


class ForkIn(Body):
    at_tick: int = Field(ge=1, le=MAX_TICKS, description="replay the source's first at_tick ticks")
    seed: Optional[int] = Field(None, ge=-(2**62), le=2**62)
    profile: Optional[str] = Field(None, max_length=80)
    ticks: Optional[int] = Field(None, ge=1, le=MAX_TICKS, description="the fork's length; null: the source's")
    parameters: Parameters = Field(default_factory=Parameters)


class AgentOut(Schema):
    key: str
    name: str
    rung: int
    rung_name: str
    rung_reached_tick: int
    room: str
    room_name: str
    destination: Optional[str] = None
    alive: bool
    asleep: bool
    busy_until_tick: int


class MemoryOut(Schema):
    id: int
    tick: int
    kind: str
    importance: int
    depth: int
    text: str
    evidence: list[int]


class MemoryPage(Page):
    items: list[MemoryOut]


class RecalledOut(Schema):
    id: int
    tick: int
    kind: str
    importance: int
    text: str
    score: float


class SummaryOut(Schema):
    level: int
    first_row: int
    last_row: int
    row_count: int
    tick: int
    text: str
    folded: bool


class DreamOut(Schema):
    tick: int
    identity: str
    places: str
    people: str


class DiaryOut(Schema):
    date: date
    day: int
    tick: int
    mood: str
    room: str
    text: str


class TrustChange(Schema):
    tick: int
    score: float
    label: str
    emotional_tone: str
    rationale: str


class TrustOut(Schema):
    other: str
    score: float
    label: str
    emotional_tone: str
    rationale: str
    interaction_count: int
    first_met_tick: int
    updated_tick: int
    history: list[TrustChange]


class EventOut(Schema):
    seq: int
    tick: int
    clock: str
    kind: str
    actor: Optional[str] = None
    room: Optional[str] = None
    text: str
    data: dict[str, Any]


class EventPage(Page):
    items: list[EventOut]


class CallOut(Schema):
    id: int
    tick: int
    agent: Optional[str] = None
    purpose: str
    prompt: list[dict[str, Any]]
    answer: str
    answered: bool
    error: str
    outcome: str
    detail: str
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    cached_tokens: int
    latency_ms: float
    attempts: int
    cost: float


class CallPage(Page):
    items: list[CallOut]
