"""Admin saves that keep the world's rules (world/rules/scenario_check.py).

A save of a scenario or a persona is made, then the whole scenario is checked inside the same
transaction; if it breaks a rule the transaction rolls back and the form comes back with the user's
input and each broken rule named. Checking the saved rows (rather than guessing from a page of
forms and inline formsets) means the admin asks exactly what the file import asks.
"""
from __future__ import annotations

from django.contrib import admin
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError

from world.scenarios.files import world_problems


class WorldRuleBroken(Exception):
    def __init__(self, messages: list[str]):
        self.messages = messages
        super().__init__("; ".join(messages))


def used_by_runs(scenario) -> bool:
    return scenario is not None and scenario.pk is not None and scenario.runs.exists()


USED = ("Runs have used this scenario, so it is read-only: a world never changes under the runs that live in it. "
        "Use the action “Copy to a new scenario” to edit a copy.")


class WorldRulesAdmin(admin.ModelAdmin):
    """Subclasses say which scenario a saved object belongs to (`scenario_of`)."""

    def scenario_of(self, obj):
        raise NotImplementedError

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        problems = world_problems(self.scenario_of(form.instance))
        if problems:
            raise WorldRuleBroken([f"Not saved: {p.message} (rule: {p.rule})" for p in problems])

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if request.method != "POST":
            return super().changeform_view(request, object_id, form_url, extra_context)
        try:
            with transaction.atomic():
                return super().changeform_view(request, object_id, form_url, extra_context)
        except WorldRuleBroken as exc:
            request.world_refusals = exc.messages
        except ProtectedError as exc:
            used = sorted({str(o) for o in exc.protected_objects})[:5]
            request.world_refusals = [f"Not saved: a room cannot go while something still uses it ({', '.join(used)})"]
        except IntegrityError as exc:
            request.world_refusals = [f"Not saved: a key or name is used twice in this scenario ({exc})"]
        # The same POST again, its form now invalid with the reasons: the user keeps every edit.
        return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        refusals = getattr(request, "world_refusals", None)
        if not refusals:
            return form

        class Refused(form):
            def clean(self):
                cleaned = super().clean()
                for message in refusals:
                    self.add_error(None, message)
                return cleaned

        return Refused
