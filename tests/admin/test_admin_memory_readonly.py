"""Memory is read-only in the admin for everyone, superusers included: a POST to change, delete or
add a memory row, summary, dream, diary entry, trust entry, trust history or model call is refused
and the row is unchanged. Inspection filters by run, agent, day and tick, and searches text."""
import pytest
from django.contrib.auth.models import User
from django.forms.models import model_to_dict
from django.utils.html import escape

from memories.models import DiaryEntry, Dream, Memory, MemorySummary, TrustEntry, TrustHistory
from voyage.engine.runner import advance
from voyage.models import Event, LLMCall
from voyage.runs.config import configure_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(client):
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    return client


@pytest.fixture
def remembered():
    """A short run's memory, plus one row of each kind the short run does not reach."""
    run = configure_run("edelweiss", cast=["edmund_hale", "vivian_hale", "jonas_weber"], ticks=6, seed=3)
    advance(run, 6)
    hale, vivian = run.agents.order_by("persona__key")[:2]
    summary = MemorySummary.objects.create(run=run, agent=hale, first_row=1, last_row=2, row_count=2, tick=5,
                                           text="I woke beside a woman who says she is my wife.")
    dream = Dream.objects.create(run=run, agent=hale, tick=5, identity="a soldier", places="a corridor",
                                 people="a wife")
    diary = DiaryEntry.objects.create(run=run, agent=hale, date="1929-01-18", day=1, tick=5, mood="uneasy",
                                      location=hale.location, text="Snow all day.")
    trust = TrustEntry.objects.create(run=run, agent=hale, other=vivian, score=0.5, label="spouse", first_met_tick=1,
                                      updated_tick=5)
    history = TrustHistory.objects.create(entry=trust, tick=5, score=0.5, label="spouse")
    return {"run": run, "rows": [Memory.objects.filter(run=run).first(), summary, dream, diary, trust, history,
                                 LLMCall.objects.filter(run=run).first(), Event.objects.filter(run=run).first()]}


def admin_url(obj, view):
    return f"/admin/{obj._meta.app_label}/{obj._meta.model_name}/{obj.pk}/{view}/"


def test_no_change_delete_or_add_for_a_superuser(superuser, remembered):
    for row in remembered["rows"]:
        row.refresh_from_db()
        before = model_to_dict(row)
        assert superuser.get(admin_url(row, "change")).status_code == 200  # inspecting is allowed
        assert superuser.post(admin_url(row, "change"), {**{k: "" for k in before}, "text": "rewritten"}).status_code \
            == 403
        assert superuser.post(admin_url(row, "delete"), {"post": "yes"}).status_code == 403
        assert superuser.post(f"/admin/{row._meta.app_label}/{row._meta.model_name}/add/", {}).status_code == 403
        changelist = f"/admin/{row._meta.app_label}/{row._meta.model_name}/"
        superuser.post(changelist, {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"})
        row.refresh_from_db()
        assert model_to_dict(row) == before, type(row).__name__


def test_inspection_filters_and_search(superuser, remembered):
    run = remembered["run"]
    hale = run.agents.get(persona__key="edmund_hale")
    page = superuser.get(f"/admin/memories/memory/?run_id={run.pk}&agent_id={hale.pk}&day=0")
    shown = list(page.context["cl"].result_list)
    assert shown and all(m.agent_id == hale.pk and m.run_id == run.pk for m in shown)
    assert "Edmund Hale" in page.content.decode()  # the agent filter lists the run's agents by name
    tick = shown[0].tick
    page = superuser.get(f"/admin/memories/memory/?run_id={run.pk}&tick={tick}")
    assert {m.tick for m in page.context["cl"].result_list} == {tick}
    page = superuser.get("/admin/memories/memorysummary/?q=woman+who+says")
    assert [s.pk for s in page.context["cl"].result_list] == [remembered["rows"][1].pk]
    call = remembered["rows"][6]
    page = superuser.get(admin_url(call, "change")).content.decode()
    assert "Prompt (exactly as sent)" in page and escape(call.prompt[0]["content"][:60]) in page
