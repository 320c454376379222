"""The world in the admin: a save that breaks a rule of the world is refused with the rule named and
nothing changed; spouses go both ways; a used scenario is read-only and can be copied; a scenario file
uploads, or shows its problems and loads nothing."""
import datetime

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile

from voyage.runs.config import configure_run
from world.models import Exit, Persona, Prop, Room, Rung, Scenario, SoulEntry
from world.scenarios.files import export_yaml, shipped_file

pytestmark = pytest.mark.django_db


def world_rows():
    return [m.objects.count() for m in (Scenario, Room, Exit, Persona, SoulEntry, Prop, Rung)]


def post_data(response) -> dict:
    """The change page's forms as the browser would post them back unchanged."""
    forms = [response.context["adminform"].form]
    data = {}
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        forms += formset.forms
        for name in formset.management_form.fields:
            data[formset.management_form.add_prefix(name)] = formset.management_form[name].value()
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            key = form.add_prefix(name)
            if isinstance(value, bool) or name == "DELETE":
                if value:
                    data[key] = "on"
            elif value is not None:  # value() is already prepared for the widget
                data[key] = value.isoformat() if isinstance(value, datetime.date) else value
    return data


def row_key(data: dict, prefix: str, **match) -> str:
    """The form prefix (e.g. 'exit_set-12') of the inline row whose fields match."""
    for key in data:
        if key.startswith(prefix) and key.count("-") == 2:
            row = key.rsplit("-", 1)[0]
            if all(str(data.get(f"{row}-{f}")) == str(v) for f, v in match.items()):
                return row
    raise KeyError(match)


def edelweiss():
    return Scenario.objects.get(slug="edelweiss")


def test_an_unchanged_save_passes_the_rules(superuser):
    url = f"/admin/world/scenario/{edelweiss().pk}/change/"
    response = superuser.post(url, post_data(superuser.get(url)))
    assert response.status_code == 302


def test_a_save_that_disconnects_the_rooms_is_refused_with_the_rule(superuser):
    url = f"/admin/world/scenario/{edelweiss().pk}/change/"
    data = post_data(superuser.get(url))
    data[row_key(data, "exits-", a_key="east_corridor", b_key="room_9") + "-DELETE"] = "on"
    data[row_key(data, "rooms-", key="salon") + "-name"] = "The Salon"  # an edit that is lost with the refusal
    before = world_rows()
    response = superuser.post(url, data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert any("no way leads from 'entrance_hall' to 'room_9'" in e and "(rule: the room graph is connected)" in e
               for e in errors)
    assert world_rows() == before and Room.objects.filter(name="Salon", scenario=edelweiss()).exists()
    assert 'value="The Salon"' in response.content.decode()  # the user's edits are still on the page


def test_a_gap_in_the_rungs_is_refused(superuser):
    url = f"/admin/world/scenario/{edelweiss().pk}/change/"
    data = post_data(superuser.get(url))
    data[row_key(data, "rungs-", level=2) + "-level"] = "3"
    response = superuser.post(url, data)
    assert any("rung levels run 0, 1, 2" in e for e in response.context["adminform"].form.non_field_errors())
    assert sorted(edelweiss().rungs.values_list("level", flat=True)) == [0, 1, 2]


def test_a_persona_without_its_name_prop_is_refused(superuser):
    persona = Persona.objects.get(key="jonas_weber")
    url = f"/admin/world/persona/{persona.pk}/change/"
    data = post_data(superuser.get(url))
    data[row_key(data, "props-", kind="name") + "-DELETE"] = "on"
    response = superuser.post(url, data)
    assert any("'jonas_weber' has 0 name props" in e and "(rule: every persona has one name prop of its own)" in e
               for e in response.context["adminform"].form.non_field_errors())
    assert Prop.objects.filter(owner=persona, kind="name").count() == 1


def test_spouses_go_both_ways_and_must_share_a_home(superuser):
    ilse, paolo = Persona.objects.get(key="ilse_marr"), Persona.objects.get(key="paolo_benedetti")
    url = f"/admin/world/persona/{ilse.pk}/change/"
    data = post_data(superuser.get(url))
    response = superuser.post(url, {**data, "spouse": paolo.pk})
    assert response.status_code == 302
    paolo.refresh_from_db()
    assert paolo.spouse_id == ilse.pk  # married from one side, married on both
    vivian = Persona.objects.get(key="vivian_hale")
    url = f"/admin/world/persona/{vivian.pk}/change/"
    data = post_data(superuser.get(url))
    response = superuser.post(url, {**data, "home_node": Room.objects.get(key="room_9").pk})
    assert any("live apart" in e and "spouses are mutual and share a home" in e
               for e in response.context["adminform"].form.non_field_errors())
    vivian.refresh_from_db()
    assert vivian.home_node.key == "room_4"


def test_a_used_scenario_is_read_only_and_can_be_copied(superuser):
    scenario = edelweiss()
    configure_run(scenario, ticks=5)
    url = f"/admin/world/scenario/{scenario.pk}/change/"
    page = superuser.get(url)
    assert "read-only" in page.content.decode() and page.context["has_change_permission"] is False
    before = world_rows()
    assert superuser.post(url, {"name": "changed"}).status_code == 403
    persona = Persona.objects.get(key="ilse_marr")
    assert superuser.post(f"/admin/world/persona/{persona.pk}/change/", {"display_name": "x"}).status_code == 403
    assert world_rows() == before
    response = superuser.post("/admin/world/scenario/", {"action": "copy_to_new_scenario",
                                                     "_selected_action": [scenario.pk]}, follow=True)
    copy = Scenario.objects.get(slug="edelweiss-copy")
    assert any("edelweiss-copy" in str(m) for m in get_messages(response.wsgi_request))
    assert export_yaml(copy) == export_yaml(scenario).replace("slug: edelweiss", "slug: edelweiss-copy").replace(
        "name: Sanatorium Edelweiss, January 1929", "name: Sanatorium Edelweiss, January 1929 (copy)")


def test_uploading_a_broken_file_names_the_key_path_and_loads_nothing(superuser):
    text = shipped_file("edelweiss").read_text(encoding="utf-8").replace("slug: edelweiss", "slug: snowed-in")
    broken = text.replace("  spouse: edmund_hale", "  spouse: anton_kessler")
    before = world_rows()
    response = superuser.post("/admin/world/scenario/upload/",
                          {"file": SimpleUploadedFile("s.yaml", broken.encode())})
    page = response.content.decode()
    assert response.status_code == 200 and "nothing was written" in page
    assert "personas[4].spouse: &#x27;vivian_hale&#x27; names &#x27;anton_kessler&#x27; as spouse" in page
    assert world_rows() == before
    response = superuser.post("/admin/world/scenario/upload/", {"file": SimpleUploadedFile("s.yaml", text.encode())})
    assert response.status_code == 302 and Scenario.objects.get(slug="snowed-in").personas.count() == 8


def test_a_new_scenario_is_written_in_one_save_and_its_rules_hold(superuser):
    """Rooms, the exits joining them (by key) and the ladder in one save; a second room left unjoined
    is refused with the rule."""
    def form(exits):
        data = {"slug": "lighthouse", "name": "The Lighthouse", "start_date": "1899-11-02", "premise": "Fog."}
        for prefix, rows in (("rooms", [{"key": "lamp", "name": "Lamp Room", "deck": "Top", "scale": "small",
                                         "ambient_noise": "high"},
                                        {"key": "stair", "name": "Stair", "deck": "Tower", "scale": "small",
                                         "ambient_noise": "low"}]),
                             ("exits", exits), ("props", []),
                             ("rungs", [{"level": "0", "name": "Fog", "reveals": "Nothing.",
                                         "allowed_actions": '["move", "sleep"]', "knows": "[]", "gate_prop": "",
                                         "min_ticks_since_previous": "0"}])):
            data.update({f"{prefix}-TOTAL_FORMS": len(rows), f"{prefix}-INITIAL_FORMS": 0})
            for i, row in enumerate(rows):
                data.update({f"{prefix}-{i}-{k}": v for k, v in row.items()})
        return data

    before = world_rows()
    response = superuser.post("/admin/world/scenario/add/", form([]))
    assert any("no way leads from 'lamp' to 'stair'" in e for e in response.context["adminform"].form.non_field_errors())
    assert world_rows() == before
    response = superuser.post("/admin/world/scenario/add/", form([{"a_key": "lamp", "b_key": "stair"}]))
    assert response.status_code == 302
    scenario = Scenario.objects.get(slug="lighthouse")
    assert [(e.a.key, e.b.key) for e in scenario.exits.all()] == [("lamp", "stair")]
    assert scenario.rung_specs()[0].allowed_actions == ("move", "sleep")


def test_an_unused_scenario_can_be_deleted_whole_and_a_used_one_cannot(superuser):
    from world.scenarios.files import copy_scenario

    copy = copy_scenario(edelweiss(), "to-delete", "To delete")
    assert superuser.post(f"/admin/world/scenario/{copy.pk}/delete/", {"post": "yes"}).status_code == 302
    assert not Scenario.objects.filter(slug="to-delete").exists()
    assert not Persona.objects.filter(scenario_id=copy.pk).exists() and not Room.objects.filter(scenario_id=copy.pk)
    configure_run(edelweiss(), ticks=5)
    assert superuser.post(f"/admin/world/scenario/{edelweiss().pk}/delete/", {"post": "yes"}).status_code == 403
    assert edelweiss().personas.count() == 8
