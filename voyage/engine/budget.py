"""A run's budget: when its model calls have used the tokens or the money the run allows, the run
pauses, saying why. Raise the budget (or clear it) and resume to go on."""
from __future__ import annotations

from decimal import Decimal

from voyage.calls.usage import simulation_totals


class Budget:
    def __init__(self, run):
        self.max_tokens = run.budget_tokens
        self.max_cost = Decimal(run.budget_cost) if run.budget_cost is not None else None
        self.tokens, self.cost = 0, Decimal(0)
        if self.limited:
            spent = simulation_totals(run)
            self.tokens, self.cost = spent["tokens"], Decimal(str(spent["cost"]))

    @property
    def limited(self) -> bool:
        return self.max_tokens is not None or self.max_cost is not None

    def add(self, calls) -> None:
        """Count the calls a committed tick recorded."""
        if not self.limited:
            return
        for c in calls:
            self.tokens += c.prompt_tokens + c.completion_tokens
            self.cost += Decimal(str(c.cost))

    def exhausted(self) -> str:
        """Why the run must pause, or "" while it is within budget."""
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            return f"token budget reached: {self.tokens:,} of {self.max_tokens:,} tokens used"
        if self.max_cost is not None and self.cost >= self.max_cost:
            return f"cost budget reached: {self.cost:.4f} of {self.max_cost:.4f} spent"
        return ""
