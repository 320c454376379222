"""The admin's run forms: thin shells over voyage.runs.config, which does every check. Its messages,
keyed by field, land at the form's fields (the length, given in days or ticks, at `length`)."""
from __future__ import annotations

from django import forms
from django.contrib.admin.helpers import ActionForm
from django.core.exceptions import ValidationError
from django.forms.models import construct_instance

from voyage.models import Run
from voyage.runs.config import PARAMETERS, PARAMETER_HELP, check_config, check_update
from world.models import Persona

LENGTH_FIELDS = {"ticks": "length", "days": "length"}


def _place(form: forms.Form, exc: ValidationError) -> None:
    for field, messages in exc.message_dict.items():
        target = LENGTH_FIELDS.get(field, field)
        form.add_error(target if target in form.fields else None, messages)


def _construct(form: forms.ModelForm) -> None:
    """Fill the instance from the form without the model's own validation: runconfig has checked
    every field already, with messages that name the rule."""
    form.instance = construct_instance(form, form.instance, form._meta.fields, form._meta.exclude)


class CastField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, persona):
        return f"{persona.scenario.slug}: {persona.display_name}"


class RunConfigForm(forms.ModelForm):
    """Adding a run: scenario, cast, model, schedule, seed, length and every parameter."""

    cast = CastField(queryset=Persona.objects.select_related("scenario").order_by("scenario__slug", "key"),
                     required=False, widget=forms.SelectMultiple(attrs={"size": 12}),
                     help_text="the personas who take part (all of the scenario's if none is chosen; at least two); "
                               "hold Ctrl or ⌘ to choose several")
    length = forms.DecimalField(initial=1, decimal_places=3, help_text="how long the run goes: a day is 480 ticks "
                                                                       "(one tick is 3 simulated minutes)")
    length_unit = forms.ChoiceField(choices=[("days", "days"), ("ticks", "ticks")], initial="days", label="in")
    context_layout = forms.ChoiceField(
        choices=[("", "default: cached for a real model, seed for the offline policy"), *Run.CONTEXT_LAYOUTS],
        required=False, initial="", label="Context layout", help_text=PARAMETER_HELP["context_layout"])

    class Meta:
        model = Run
        fields = ("name", "scenario", "cast", "profile", "schedule", "seed", "length", "length_unit", *PARAMETERS)
        help_texts = {**PARAMETER_HELP,
                      "profile": "the model answering every call; empty: the offline scripted policy (not an LLM), "
                                 "which needs no network and no key",
                      "schedule": "sequential: agents act one after another and see what earlier ones did; "
                                  "simultaneous: all decide on the tick's snapshot, calls run concurrently",
                      "seed": "the run's one random seed: same seed, same offline model, same transcript",
                      "scenario": "the world the run lives in"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["profile"].empty_label = "offline scripted policy (default)"
        self.warnings: list[str] = []

    def config(self) -> dict:
        """configure_run's arguments from the cleaned form."""
        c = self.cleaned_data
        length = c["length"]
        return {"scenario": c["scenario"], "cast": [p.key for p in c["cast"]] if c.get("cast") else None,
                "profile": c.get("profile"), "schedule": c["schedule"], "seed": c["seed"], "name": c.get("name") or "",
                **({"ticks": int(length)} if c["length_unit"] == "ticks" and length == int(length)
                   else {"ticks": length} if c["length_unit"] == "ticks" else {"days": float(length)}),
                **{p: c[p] for p in PARAMETERS}}

    def clean(self):
        cleaned = super().clean()
        if not self.errors:  # each field converted; now the rules across them, by runconfig
            try:
                self.warnings = check_config(**self.config())
            except ValidationError as exc:
                _place(self, exc)
        return cleaned

    def _post_clean(self):
        _construct(self)


class RunChangeForm(forms.ModelForm):
    """Changing a run: anything before it has started; once started, its budget and length, upwards."""

    class Meta:
        model = Run
        fields = ("name", "profile", "schedule", "seed", "target_ticks", *PARAMETERS)
        help_texts = {**PARAMETER_HELP, "target_ticks": "the run's length in ticks (a day is 480); a started run's "
                                                        "may only grow"}

    def changes(self) -> dict:
        return {f: self.cleaned_data[f] for f in self.changed_data if f in self.cleaned_data}

    def clean(self):
        cleaned = super().clean()
        if not self.errors and self.instance.pk:
            try:
                check_update(self.instance, **self.changes())
            except ValidationError as exc:
                _place(self, exc)
        return cleaned

    def _post_clean(self):
        _construct(self)


class RunActionForm(ActionForm):
    seed = forms.IntegerField(required=False, help_text="clone only: a new seed (empty: the same)")
