"""Studies in the admin: made with the same checks as `study create` (voyage.studies.config), then
read-only, listed with their progress; runs inline with links to each."""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, Q, Sum
from django.urls import reverse
from django.utils.html import format_html

from voyage.models import Run
from voyage.studies import scheduler
from voyage.studies.arms import ArmError, parse_spec
from voyage.studies.config import StudyError, StudyPlan, create_study
from voyage.studies.grid import GridError, parse_vary
from voyage.studies.models import Study, StudyRun
from voyage.studies.study_judging import StudyJudgeError, parse_judge
from voyage.studies.study_surveys import StudySurveyError, parse_survey
from world.models import Scenario
from world.time import TICKS_PER_DAY


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


class StudyCreateForm(forms.ModelForm):
    """Every field is checked by create_study, which makes the study and its runs in one go (inside the
    admin's transaction), so an error anywhere in the grid is shown and nothing is written."""

    scenario = forms.ModelChoiceField(Scenario.objects.order_by("slug"), to_field_name="slug")
    days = forms.FloatField(required=False, min_value=0.001, help_text=f"per run ({TICKS_PER_DAY} ticks a day)")
    ticks = forms.IntegerField(required=False, min_value=1, help_text="per run, instead of days")
    axes = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False,
                           help_text="one axis a line: seed=1,2,3 or seeds=3; profile=offline,NAME; "
                                     "hot_memory_limit=30,50; any run parameter")
    shared = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, label="Every run",
                             help_text="one NAME=VALUE a line, e.g. schedule=simultaneous or attrition_threshold=60")
    interventions = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False,
        help_text="the values of an intervention axis (add the line intervention=none,NAME to the axes), one a line: "
                  "NAME:room_event@TICK:ROOM:TEXT, NAME:memory@TICK:AGENT:TEXT, or NAME={JSON} with the API's fields "
                  '(e.g. lamp={"kind": "object_place", "tick": 120, "name": "Brass lamp", "room": "salon", '
                  '"text": "It hums."}); the arms are forks of one base run, made at the earliest tick')
    surveys = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False,
        help_text="questionnaires put to every run as it stood at a tick, once it has finished, one a line: "
                  "NAME@TICK with the name of a saved questionnaire (Instruments › Questionnaires); its items "
                  "become measures (docs/surveys.md)")
    judging = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Judge",
        help_text="a day of every run judged against a rubric, once the run has finished, one a line: RUBRIC@DAY with "
                  "default or the name of a rubric shipped in voyage/judging/rubrics (e.g. default@1); each dimension "
                  "becomes a measure, carried with the judge's verdict; RUBRIC@DAY:scenes=N judges the day's N "
                  "busiest scenes too (docs/judging.md)")
    parallel = forms.IntegerField(required=False, min_value=1,
                                  help_text="runs on the worker at once (default: all; 1 with a budget)")
    start = forms.BooleanField(required=False, initial=True, help_text="queue the runs on the worker now")

    class Meta:
        model = Study
        fields = ["name", "budget_cost"]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        if (data.get("days") is None) == (data.get("ticks") is None):
            raise forms.ValidationError("give the length of each run in days or in ticks (one of them)")
        ticks = data["ticks"] if data.get("ticks") is not None else round(data["days"] * TICKS_PER_DAY)
        shared = {}
        for line in lines(data.get("shared", "")):
            name, sep, value = line.partition("=")
            if not sep:
                raise forms.ValidationError({"shared": f"{line!r}: write NAME=VALUE"})
            shared[name.strip()] = value.strip()
        interventions = {}
        try:
            for line in lines(data.get("interventions", "")):
                name, fields = parse_spec(line)
                if name in interventions:
                    raise StudyError(f"intervention {name!r} is given twice")
                interventions[name] = fields
            plan = StudyPlan(name=data["name"], scenario=data["scenario"].slug, target_ticks=ticks,
                             axes=parse_vary(lines(data.get("axes", ""))), base=shared,
                             budget_cost=data.get("budget_cost"), parallel=data.get("parallel"),
                             interventions=interventions,
                             surveys=[parse_survey(line, saved=True) for line in lines(data.get("surveys", ""))],
                             judging=[parse_judge(line, files=False) for line in lines(data.get("judging", ""))])
            self.study = create_study(plan)
        except (StudyError, GridError, ArmError, StudySurveyError, StudyJudgeError) as exc:
            raise forms.ValidationError(str(exc)) from None
        return data

    def _post_clean(self):
        """No model validation of the form's instance: create_study checked and saved everything."""

    def save(self, commit=True):
        return self.study

    def save_m2m(self):
        pass


class StudyRunInline(admin.TabularInline):
    model = StudyRun
    fields = ["position", "run_link", "cell", "is_base", "state", "progress", "started_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="run")
    def run_link(self, member):
        return format_html('<a href="{}">{}</a> · <a href="{}">dashboard</a>',
                           reverse("admin:voyage_run_change", args=[member.run_id]), member.run, f"/runs/{member.run_id}/")

    @admin.display(description="state")
    def state(self, member):
        return member.run.state + (f": {member.run.pause_reason or member.run.error}"
                                   if member.run.pause_reason or member.run.error else "")

    @admin.display(description="ticks")
    def progress(self, member):
        return f"{member.run.tick}/{member.run.target_ticks}"


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["name", "state", "runs_finished", "ticks", "cost", "stop_reason", "created_at", "page"]
    list_filter = ["state"]
    search_fields = ["name"]
    inlines = [StudyRunInline]
    actions = ["start_on_worker"]
    readonly_fields = ["name", "scenario", "target_ticks", "axes", "base", "interventions", "surveys", "judging",
                       "fork_tick", "budget_cost", "parallel", "state", "stop_reason", "created_at", "page"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            n_runs=Count("members", distinct=True),
            n_finished=Count("members", filter=Q(members__run__state=Run.FINISHED), distinct=True),
            n_ticks=Sum("members__run__tick"), n_target=Sum("members__run__target_ticks"))

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = StudyCreateForm
            kwargs["fields"] = None
        return super().get_form(request, obj, **kwargs)

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return [(None, {"fields": ["name", "scenario", "days", "ticks", "axes", "shared", "interventions",
                                       "surveys", "judging", "budget_cost", "parallel", "start"]})]
        return super().get_fieldsets(request, obj)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else []

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    def save_model(self, request, obj, form, change):
        if change:
            return
        if form.cleaned_data.get("start"):
            started = scheduler.start(obj)
            self.message_user(request, f"study {obj.name!r}: {obj.members.count()} runs made, {len(started)} "
                                       f"queued on the worker")
        for warning in getattr(obj, "warnings", []):
            self.message_user(request, warning, messages.WARNING)

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    @admin.display(description="runs finished")
    def runs_finished(self, study):
        return f"{study.n_finished}/{study.n_runs}"

    @admin.display(description="ticks")
    def ticks(self, study):
        return f"{study.n_ticks or 0}/{study.n_target or 0}"

    @admin.display(description="cost")
    def cost(self, study):
        spent = f"{scheduler.spent(study):.4f}"
        return spent + (f" of {study.budget_cost:.4f}" if study.budget_cost is not None else "")

    @admin.display(description="comparison page")
    def page(self, study):
        return format_html('<a href="{}">/studies/{}/</a>', reverse("studies:detail", args=[study.pk]), study.pk)

    @admin.action(description="Start the selected studies on the worker")
    def start_on_worker(self, request, queryset):
        for study in queryset:
            started = scheduler.start(study)
            self.message_user(request, f"study {study.name!r}: {len(started)} run(s) queued")
