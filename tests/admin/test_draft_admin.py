"""The admin's "Draft a world": a paragraph drafted on the offline policy shows its report and file;
model text is shown escaped; an edited file is checked again and installed only when it passes; a
staff user without the right to add scenarios is turned away."""
import html
import re

import pytest

from world.models import Scenario

pytestmark = pytest.mark.django_db
URL = "/admin/world/scenario/draft/"
PARAGRAPH = "A small island with a harbour, a chapel and a pub called <b>The Anchor</b>."


def draft(client, **fields):
    return client.post(URL, {"paragraph": PARAGRAPH, "people": 4, "rooms": 5, "profile": "", "repair_rounds": 1,
                             "budget": 1, "draft": "Draft", **fields})


def test_a_draft_shows_its_report_and_file_escaped_and_installs_nothing_yet(superuser):
    page = draft(superuser).content.decode()
    assert "dry run (one offline day, rolled back" in page and '"valid": true' in page.replace("&quot;", '"')
    assert "&lt;b&gt;The Anchor&lt;/b&gt;" in page and "<b>The Anchor</b>" not in page
    assert not Scenario.objects.filter(slug__endswith="-draft").exists()


def test_an_edited_draft_is_checked_again_and_installed_only_when_it_passes(superuser):
    page = draft(superuser).content.decode()
    text = html.unescape(re.search(r'<textarea name="text"[^>]*>\n?(.*?)</textarea>', page, re.S).group(1))
    hidden = {"paragraph": PARAGRAPH, "people": 4, "rooms": 5, "install": "1"}
    broken = superuser.post(URL, {**hidden, "text": text.replace("spouse: null", "spouse: nobody", 1)})
    assert "is married to an unknown persona" in broken.content.decode() and not Scenario.objects.filter(
        slug__endswith="-draft").exists()
    done = superuser.post(URL, {**hidden, "text": text.replace("(a scripted draft)", "(edited)")})
    assert done.status_code == 302
    scenario = Scenario.objects.get(slug__endswith="-draft")
    assert scenario.name.endswith("(edited)") and scenario.personas.count() == 4


def test_a_bad_ask_is_refused_with_its_reason(superuser):
    page = draft(superuser, people=6, rooms=3).content.decode()
    assert "nothing was drafted" in page and "ask for at least 4 rooms" in page and "draft-report" not in page


def test_staff_without_the_right_to_add_scenarios_is_turned_away(staff):
    assert staff.get(URL).status_code == 403
