"""The admin: interventions made here go through the same checks and application as everywhere
(voyage.instruments.interventions.intervene); made ones are read-only. Interviews are listed."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from voyage.instruments.interventions import InterventionError, check, intervene
from voyage.instruments.models import Intervention, Interview, Questionnaire, Survey


class InterventionForm(forms.ModelForm):
    tick = forms.IntegerField(required=False, min_value=0, help_text="empty: the tick the run stands at")

    class Meta:
        model = Intervention
        fields = ("run", "tick", "kind", "room", "how", "agent", "name", "field", "text")

    def clean(self):
        data = super().clean()
        run, room, agent = data.get("run"), data.get("room"), data.get("agent")
        if run is None:
            return data
        if room is not None and room.scenario_id != run.scenario_id:
            raise ValidationError(f"room: {room} is not a room of the scenario {run.scenario.slug!r}")
        if agent is not None and agent.run_id != run.pk:
            raise ValidationError(f"agent: {agent} is not in run {run.pk}")
        try:
            check(run, data.get("kind"), data.get("text"), data.get("tick"), room.key if room else None,
                  data.get("how") or Intervention.SOUND, agent.persona.key if agent else None,
                  name=data.get("name") or "", field=data.get("field") or "")
        except InterventionError as exc:
            raise ValidationError(str(exc)) from None
        return data


@admin.register(Intervention)
class InterventionAdmin(admin.ModelAdmin):
    form = InterventionForm
    list_display = ("id", "run", "tick", "kind", "room", "how", "agent", "made_by", "applied", "text")
    list_filter = ("kind", "applied")
    raw_id_fields = ("run", "agent")
    search_fields = ("text", "made_by")

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        made = intervene(data["run"], data["kind"], data["text"], tick=data.get("tick"),
                         room=data["room"].key if data.get("room") else None, how=data.get("how") or Intervention.SOUND,
                         agent=data["agent"].persona.key if data.get("agent") else None,
                         name=data.get("name") or "", field=data.get("field") or "", made_by=request.user.get_username())
        obj.pk = made.pk

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Interview)
class InterviewAdmin(admin.ModelAdmin):
    list_display = ("id", "run", "agent", "tick", "rung", "question", "asked_by", "asked_at")
    list_select_related = ("agent__persona", "asked_by", "run")
    readonly_fields = ("run", "agent", "tick", "rung", "question", "call", "asked_by", "asked_at")
    search_fields = ("question",)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Questionnaire)
class QuestionnaireAdmin(admin.ModelAdmin):
    """Saved questionnaires (YAML, checked whole on save: each problem names its line, item and key);
    the run's surveys page offers them."""

    list_display = ("name", "created_at")
    search_fields = ("name", "text")


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = ("id", "run", "tick", "title", "agents", "scripted", "made_by", "asked_at")
    readonly_fields = ("run", "tick", "title", "questionnaire", "digest", "agents", "scripted", "asked_by", "made_by",
                       "asked_at")
    search_fields = ("title",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
