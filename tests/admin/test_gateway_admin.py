"""Model profiles in the admin: validation, and pages that render without ever showing a key."""
import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from voyage.engine.runner import advance, create_run
from voyage.models import ModelProfile
from world.models import Scenario

pytestmark = pytest.mark.django_db


def profile(**fields):
    return ModelProfile(**{"name": "p", "kind": ModelProfile.OPENAI, "base_url": "https://openrouter.ai/api/v1",
                           "api_key_env": "OPENROUTER_API_KEY", **fields})


def test_a_complete_profile_is_valid_with_the_documented_defaults():
    p = profile()
    p.full_clean()
    assert p.model == "google/gemma-4-31b-it" and p.structured_output == "json_object"
    assert p.reasoning_on == {"reasoning": {"enabled": True}} and p.reasoning_off == {"reasoning": {"enabled": False}}


@pytest.mark.parametrize("fields,field", [
    ({"base_url": ""}, "base_url"),
    ({"api_key_env": "sk-or-v1-0123456789"}, "api_key_env"),
    ({"reasoning": {"acting": True}}, "reasoning"),
    ({"reasoning": {"action": "yes"}}, "reasoning"),
    ({"reasoning": ["action"]}, "reasoning"),
    ({"reasoning_on": "enabled"}, "reasoning_on"),
    ({"timeout_s": 0}, "timeout_s"),
    ({"concurrency": 0}, "concurrency"),
    ({"instrument_page_size": 51}, "instrument_page_size"),
    ({"temperature": 3}, "temperature"),
    ({"price_in_per_m": -1}, "price_in_per_m"),
])
def test_bad_profiles_are_refused_with_a_message_on_the_field(fields, field):
    with pytest.raises(ValidationError) as err:
        profile(**fields).full_clean()
    assert field in err.value.message_dict


def test_admin_pages_render_and_show_whether_the_key_is_set_but_never_the_key(client, monkeypatch):
    monkeypatch.setenv("VOYAGE_ADMIN_KEY", "sk-admin-page-secret-99")
    admin = User.objects.create_superuser("staff", "s@example.com", "pw")
    client.force_login(admin)
    p = profile(name="router", api_key_env="VOYAGE_ADMIN_KEY")
    p.save()
    run = create_run(Scenario.objects.get(slug="1912"), target_ticks=3)
    advance(run, 3)
    pages = [client.get("/admin/voyage/modelprofile/"), client.get(f"/admin/voyage/modelprofile/{p.pk}/change/"),
             client.get("/admin/voyage/modelprofile/add/"), client.get(f"/admin/voyage/run/{run.pk}/change/"),
             client.get("/admin/voyage/llmcall/")]
    assert [r.status_code for r in pages] == [200] * 5
    html = "".join(r.content.decode() for r in pages)
    assert "sk-admin-page-secret-99" not in html
    assert "VOYAGE_ADMIN_KEY" in html and "key set here" in html.lower()
    assert 'name="instrument_page_size" value="30"' in html  # the page size a profile answers in, editable
    assert "model calls: totals per purpose" in html.lower() and "action:" in html
    response = client.post("/admin/voyage/modelprofile/add/", {
        "name": "bad", "kind": "openai", "base_url": "", "model": "m", "api_key_env": "sk-pasted-key",
        "reasoning": "{}", "reasoning_on": "{}", "reasoning_off": "{}", "temperature": "0.8", "max_tokens": "800",
        "timeout_s": "60", "retries": "3", "concurrency": "16", "price_in_per_m": "0", "price_out_per_m": "0"})
    assert response.status_code == 200 and not ModelProfile.objects.filter(name="bad").exists()
    assert "needs a base URL" in response.content.decode()
