"""An interview: a question staff asked an agent as it stood at some tick, and the model call that
answered it. Not part of the run: no event, no memory row; the run never reads this table."""
from __future__ import annotations

from django.conf import settings
from django.db import models


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
