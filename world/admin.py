"""The world in the admin: scenarios with their rooms, exits, props and rungs inline; personas with
their soul entries and own props inline. Every save keeps the world's rules (admin_rules.py); a
scenario that runs have used is read-only (copy it to edit). Scenario files: upload and download."""
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from world.admin_rules import USED, WorldRuleBroken, WorldRulesAdmin, used_by_runs
from world.admin_readonly import ReadOnlyAdmin
from world.models import AgentState, Exit, Persona, Prop, Room, Rung, Scenario, SoulEntry
from world.rules.actions import ACTION_TYPES
from world.rules.ladder import KNOWLEDGE
from world.rules.scenario_check import KNOWN_ROOMS
from world.scenarios.file_format import ScenarioFileError
from world.scenarios.files import copy_scenario, delete_scenario, export_yaml, import_yaml
from world.scenarios.voice import PHRASEBOOK_KEY, PHRASES, TEXTS, VOICE_KEY, check_voice, full_phrasebook, full_voice

TEXTAREA = forms.Textarea(attrs={"rows": 2, "cols": 60})


class ScenarioRowsInline(admin.TabularInline):
    """Rows of one scenario: choices of rooms and personas come from that scenario only; read-only
    once runs have used it."""

    extra = 0

    def get_formset(self, request, obj=None, **kwargs):
        request.world_scenario = obj
        return super().get_formset(request, obj, **kwargs)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        scenario = getattr(request, "world_scenario", None)
        if db_field.related_model in (Room, Persona):
            kwargs["queryset"] = db_field.related_model.objects.filter(scenario=scenario)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_add_permission(self, request, obj=None):
        return not used_by_runs(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return not used_by_runs(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not used_by_runs(obj) and super().has_delete_permission(request, obj)


class RoomInline(ScenarioRowsInline):
    model = Room
    fields = ("key", "name", "deck", "scale", "ambient_noise", "private", "description")
    formfield_overrides = {Room._meta.get_field("description").__class__: {"widget": TEXTAREA}}


class ExitForm(forms.ModelForm):
    """An exit names its rooms by key, so rooms added in the same save can be joined at once."""

    a_key = forms.SlugField(label="room (key)")
    b_key = forms.SlugField(label="other room (key)")

    class Meta:
        model = Exit
        fields = ()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["a_key"].initial, self.fields["b_key"].initial = self.instance.a.key, self.instance.b.key

    def save(self, commit=True):
        rooms = {r.key: r for r in Room.objects.filter(scenario_id=self.instance.scenario_id)}
        for attr in ("a", "b"):
            key = self.cleaned_data[f"{attr}_key"]
            if key not in rooms:
                raise WorldRuleBroken([f"Not saved: the exit names an unknown room {key!r} (rule: {KNOWN_ROOMS})"])
            setattr(self.instance, attr, rooms[key])
        return super().save(commit)


class ExitInline(ScenarioRowsInline):
    model = Exit
    form = ExitForm
    fields = ("a_key", "b_key")

    def get_readonly_fields(self, request, obj=None):
        return ("a", "b") if used_by_runs(obj) else ()

    def get_fields(self, request, obj=None):
        return ("a", "b") if used_by_runs(obj) else self.fields


class PropInline(ScenarioRowsInline):
    model = Prop
    fk_name = "scenario"
    fields = ("name", "kind", "room", "owner", "description")
    formfield_overrides = {Prop._meta.get_field("description").__class__: {"widget": TEXTAREA}}


class RungForm(forms.ModelForm):
    class Meta:
        model = Rung
        fields = "__all__"
        help_texts = {"allowed_actions": f"a JSON list of the actions this rung allows, of {', '.join(ACTION_TYPES)}",
                      "reveals": "what the agent is told of its state of mind at this rung",
                      "gate_prop": "which of the agent's own props opens this rung when it interacts with it"}

    def clean_knows(self):
        facts = self.cleaned_data["knows"]
        if not isinstance(facts, list) or any(f not in KNOWLEDGE for f in facts):
            raise forms.ValidationError(f"a list of facts among {', '.join(KNOWLEDGE)}; got {facts!r}")
        return facts

    def clean_allowed_actions(self):
        actions = self.cleaned_data["allowed_actions"]
        if not isinstance(actions, list) or any(a not in ACTION_TYPES for a in actions):
            raise forms.ValidationError(f"a list of actions among {', '.join(ACTION_TYPES)}; got {actions!r}")
        return actions


class RungInline(ScenarioRowsInline):
    model = Rung
    form = RungForm
    formfield_overrides = {Rung._meta.get_field("reveals").__class__: {"widget": TEXTAREA}}


class UploadForm(forms.Form):
    file = forms.FileField(help_text="a YAML scenario file (see the README, “Scenario files”)")
    replace = forms.BooleanField(required=False, help_text="replace an installed scenario with the same slug "
                                                           "(refused if runs have used it)")


# The voice and the phrasebook (world/scenarios/voice.py), one form field per text, named
# "<section>__<key>"; a list entry is edited one line per line.
SECTIONS = ((VOICE_KEY, TEXTS, full_voice), (PHRASEBOOK_KEY, PHRASES, full_phrasebook))


def _text_field(spec) -> forms.CharField:
    fields = ", ".join("{" + f + "}" for f in spec.fields)
    help_ = spec.help + (f". Placeholders: {fields}" if fields else "") + (". One line per line" if spec.is_list else "")
    return forms.CharField(label=spec.key, help_text=help_ + ". Empty: the neutral default.", required=False, widget=forms.Textarea(attrs={"rows": 5 if spec.is_list else 2,
                                                                                         "cols": 100}))


class ScenarioForm(forms.ModelForm):
    """The scenario's own fields, and every text of its voice and phrasebook with its help. The texts
    are checked as a file's are (a placeholder the key does not know is refused at the field)."""

    class Meta:
        model = Scenario
        fields = ("slug", "name", "start_date", "premise")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for section, specs, full in SECTIONS:
            texts = full(getattr(self.instance, section, None))
            for spec in specs:
                name = f"{section}__{spec.key}"
                value = texts[spec.key]
                self.fields[name].initial = "\n".join(value) if spec.is_list else value

    def clean(self):
        cleaned = super().clean()
        for section, specs, _ in SECTIONS:
            texts = {}
            for spec in specs:
                value = (cleaned.get(f"{section}__{spec.key}") or "").strip()
                if not value:  # the neutral default, as a file that leaves the key out
                    continue
                texts[spec.key] = [line.strip() for line in value.splitlines() if line.strip()] if spec.is_list \
                    else value.strip()
            for _, path, message in check_voice(texts, section):
                key = path.split(".", 1)[1].split("[")[0]
                self.add_error(f"{section}__{key}", f"{path}: {message}")
            cleaned[section] = texts
        return cleaned

    def save(self, commit=True):
        for section, _, _ in SECTIONS:
            if section in self.cleaned_data:
                setattr(self.instance, section, self.cleaned_data[section])
        return super().save(commit)


for _section, _specs, _ in SECTIONS:
    for _spec in _specs:
        ScenarioForm.base_fields[f"{_section}__{_spec.key}"] = _text_field(_spec)
        ScenarioForm.declared_fields[f"{_section}__{_spec.key}"] = ScenarioForm.base_fields[f"{_section}__{_spec.key}"]


def _shown_text(section, spec):
    """The read-only view of one text (a scenario used by runs): the text, then its help."""
    def show(self, obj):
        full = dict(SECTIONS_FULL[section](getattr(obj, section, None) if obj else None))
        value = full[spec.key]
        lines = value if spec.is_list else [value]
        return format_html('{}<div class="help">{}</div>', format_html_join("", "<div>{}</div>", ((v,) for v in lines)),
                           spec.help)
    show.short_description = spec.key
    return show


SECTIONS_FULL = {section: full for section, _, full in SECTIONS}
TEXT_FIELDS = {section: tuple(f"{section}__{spec.key}" for spec in specs) for section, specs, _ in SECTIONS}


@admin.register(Scenario)
class ScenarioAdmin(WorldRulesAdmin):
    list_display = ("slug", "name", "start_date", "rooms_count", "personas_count", "runs_count", "file")
    search_fields = ("slug", "name")
    readonly_fields = ("read_only_note", "personas_list")
    form = ScenarioForm
    fieldsets = (
        (None, {"fields": ("read_only_note", "slug", "name", "start_date", "premise", "personas_list")}),
        ("Voice: what the engine says about this world", {"fields": TEXT_FIELDS[VOICE_KEY]}),
        ("Phrasebook: the offline policy's lines", {"fields": TEXT_FIELDS[PHRASEBOOK_KEY]}),
    )
    inlines = [RoomInline, ExitInline, PropInline, RungInline]
    actions = ["copy_to_new_scenario"]
    change_list_template = "admin/world/scenario/change_list.html"

    def scenario_of(self, obj):
        return obj

    def has_change_permission(self, request, obj=None):
        return not used_by_runs(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not used_by_runs(obj) and super().has_delete_permission(request, obj)

    def get_deleted_objects(self, objs, request):
        """A scenario nobody has run goes whole (delete_scenario takes its rows in order): its personas'
        hold on their home rooms protects nothing here. One that runs have used cannot be deleted at all
        (has_delete_permission). Its rows are not deleted one by one through their own (read-only)
        lists, so no permission on those is needed."""
        deleted, counts, _, _ = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), []

    def delete_model(self, request, obj):
        delete_scenario(obj)

    def delete_queryset(self, request, queryset):
        for scenario in queryset:
            if used_by_runs(scenario):
                self.message_user(request, f"{scenario.slug} not deleted: runs have used it", messages.WARNING)
            else:
                delete_scenario(scenario)

    @admin.display(description="")
    def read_only_note(self, obj):
        return USED if used_by_runs(obj) else "Saving checks the world's rules; a save that breaks one is refused."

    @admin.display(description="personas (each edited on its own page)")
    def personas_list(self, obj):
        if obj is None or obj.pk is None:
            return "-"
        return format_html_join(", ", '<a href="{}">{}</a>', (
            (reverse("admin:world_persona_change", args=[p.pk]), p.display_name) for p in obj.personas.all()))

    @admin.display(description="rooms")
    def rooms_count(self, obj):
        return obj.rooms.count()

    @admin.display(description="personas")
    def personas_count(self, obj):
        return obj.personas.count()

    @admin.display(description="runs")
    def runs_count(self, obj):
        return obj.runs.count()

    @admin.display(description="file")
    def file(self, obj):
        return format_html('<a href="{}">{}.yaml</a>', reverse("admin:world_scenario_export", args=[obj.pk]), obj.slug)

    @admin.action(description="Copy to a new scenario (to edit a scenario that runs have used)")
    def copy_to_new_scenario(self, request, queryset):
        for scenario in queryset.order_by("pk"):
            n, slug = 1, f"{scenario.slug}-copy"[:50]
            while Scenario.objects.filter(slug=slug).exists():
                n += 1
                slug = f"{scenario.slug}-copy-{n}"[:50]
            copy = copy_scenario(scenario, slug=slug, name=f"{scenario.name} (copy)"[:200])
            self.message_user(request, format_html('Copied {} to <a href="{}">{}</a>, which you can edit.',
                                                   scenario.slug, reverse("admin:world_scenario_change",
                                                                          args=[copy.pk]), copy.slug),
                              messages.SUCCESS)

    def get_urls(self):
        own = [path("upload/", self.admin_site.admin_view(self.upload_view), name="world_scenario_upload"),
               path("<int:pk>/export/", self.admin_site.admin_view(self.export_view), name="world_scenario_export")]
        return own + super().get_urls()

    def export_view(self, request, pk):
        if not self.has_view_permission(request):
            raise PermissionDenied
        scenario = get_object_or_404(Scenario, pk=pk)
        response = HttpResponse(export_yaml(scenario), content_type="application/yaml; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{scenario.slug}.yaml"'
        return response

    def upload_view(self, request):
        """Check a whole file and load it, or show every problem (key path, line, rule) and load nothing."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = UploadForm(request.POST or None, request.FILES or None)
        problems = []
        if request.method == "POST" and form.is_valid():
            try:
                text = form.cleaned_data["file"].read().decode("utf-8")
            except UnicodeDecodeError:
                problems = ["the file is not UTF-8 text"]
            else:
                try:
                    scenario = import_yaml(text, replace=form.cleaned_data["replace"])
                except ScenarioFileError as exc:
                    problems = [str(p) for p in exc.problems]
                else:
                    self.message_user(request, f"Scenario {scenario.slug!r} loaded: {scenario.rooms.count()} rooms, "
                                               f"{scenario.personas.count()} personas.", messages.SUCCESS)
                    return HttpResponseRedirect(reverse("admin:world_scenario_change", args=[scenario.pk]))
        context = {**self.admin_site.each_context(request), "form": form, "problems": problems,
                   "opts": self.model._meta, "title": "Upload a scenario file"}
        return TemplateResponse(request, "admin/world/scenario/upload.html", context)


for _section, _specs, _ in SECTIONS:  # what a read-only scenario shows in place of each text's field
    for _spec in _specs:
        setattr(ScenarioAdmin, f"{_section}__{_spec.key}", _shown_text(_section, _spec))


class SoulEntryInline(admin.TabularInline):
    model = SoulEntry
    extra = 1

    def has_add_permission(self, request, obj=None):
        return not (obj and used_by_runs(obj.scenario)) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return not (obj and used_by_runs(obj.scenario)) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not (obj and used_by_runs(obj.scenario)) and super().has_delete_permission(request, obj)


class OwnPropsFormSet(forms.BaseInlineFormSet):
    def save_new(self, form, commit=True):
        form.instance.scenario = self.instance.scenario  # a persona's props live in its scenario
        return super().save_new(form, commit)


class OwnPropInline(SoulEntryInline):
    """The persona's name and fear props (what opens its rungs)."""

    model = Prop
    fk_name = "owner"
    formset = OwnPropsFormSet
    fields = ("kind", "name", "room", "description")
    extra = 0
    verbose_name_plural = "its own props (one name prop, one fear prop)"
    formfield_overrides = {Prop._meta.get_field("description").__class__: {"widget": TEXTAREA}}

    def get_formset(self, request, obj=None, **kwargs):
        request.world_scenario = obj.scenario if obj else None
        return super().get_formset(request, obj, **kwargs)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        scenario = getattr(request, "world_scenario", None)
        if db_field.related_model is Room and scenario is not None:
            kwargs["queryset"] = Room.objects.filter(scenario=scenario)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Persona)
class PersonaAdmin(WorldRulesAdmin):
    list_display = ("display_name", "key", "home_node", "spouse", "scenario")
    list_filter = ("scenario",)
    search_fields = ("display_name", "key", "history")
    fields = ("scenario", "key", "display_name", "history", "secret", "fear", "sex", "age", "home_node", "spouse",
              "props_shown")
    readonly_fields = ("props_shown",)
    inlines = [SoulEntryInline, OwnPropInline]

    def scenario_of(self, obj):
        return obj.scenario

    def get_readonly_fields(self, request, obj=None):
        return ("scenario", "props_shown") if obj else ("props_shown",)

    def has_change_permission(self, request, obj=None):
        return not (obj and used_by_runs(obj.scenario)) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not (obj and used_by_runs(obj.scenario)) and super().has_delete_permission(request, obj)

    def get_form(self, request, obj=None, change=False, **kwargs):
        request.world_persona = obj
        return super().get_form(request, obj, change=change, **kwargs)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        persona = getattr(request, "world_persona", None)
        if persona is not None and db_field.name == "home_node":
            kwargs["queryset"] = Room.objects.filter(scenario=persona.scenario)
        if persona is not None and db_field.name == "spouse":
            kwargs["queryset"] = Persona.objects.filter(scenario=persona.scenario).exclude(pk=persona.pk)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.display(description="name and fear props")
    def props_shown(self, obj):
        if obj is None or obj.pk is None:
            return "-"
        return format_html_join("", "<p><b>{} prop: {}</b> (in {}) — {}</p>", (
            (p.get_kind_display().split()[0], p.name, p.room, p.description)
            for p in obj.props.filter(kind__in=("name", "fear")).select_related("room").order_by("kind")))

    def save_model(self, request, obj, form, change):
        """Marriage goes both ways: naming a spouse names this persona as theirs, and unmarries whoever
        either of them was married to. The world's rules are checked after (admin_rules.py)."""
        before = Persona.objects.filter(pk=obj.pk).values_list("spouse_id", flat=True).first() if obj.pk else None
        super().save_model(request, obj, form, change)
        if obj.spouse_id != before:
            Persona.objects.filter(spouse=obj).exclude(pk=obj.spouse_id).update(spouse=None)
            if obj.spouse_id:
                Persona.objects.filter(spouse_id=obj.spouse_id).exclude(pk=obj.pk).update(spouse=None)
                Persona.objects.filter(pk=obj.spouse_id).update(spouse=obj)


@admin.register(Room)
class RoomAdmin(ReadOnlyAdmin):
    """A searchable list; rooms are edited on their scenario's page."""

    list_display = ("name", "key", "deck", "scale", "ambient_noise", "private", "scenario")
    list_filter = ("scenario", "scale", "ambient_noise", "private")
    search_fields = ("name", "key", "description")


@admin.register(Prop)
class PropAdmin(ReadOnlyAdmin):
    """A searchable list; props are edited on their scenario's (or owner's) page."""

    list_display = ("name", "kind", "room", "owner", "scenario")
    list_filter = ("scenario", "kind")
    search_fields = ("name", "description")


@admin.register(AgentState)
class AgentStateAdmin(ReadOnlyAdmin):
    """A run's live state: the engine's alone to change."""

    list_display = ("persona", "run", "location", "rung", "alive", "asleep", "busy_until_tick", "fatigue")
    list_filter = ("run", "rung", "alive", "asleep")
    search_fields = ("persona__display_name",)
