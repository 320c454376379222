"""voyage.runs.config: every configuration rule refuses with a message at its field and writes nothing."""
import pytest
from django.core.exceptions import ValidationError

from voyage.models import ModelProfile, Run
from voyage.runs.config import clone_run, configure_run, replay_run, rule_errors, update_run_params
from world.models import AgentState

pytestmark = pytest.mark.django_db

CAST = ["harold_ashcombe", "constance_ashcombe", "theodore_van_sickle"]


def counts():
    return Run.objects.count(), AgentState.objects.count()


def refused(field, **kwargs) -> str:
    """configure_run's message at `field`, having checked that nothing was written."""
    before = counts()
    kwargs.setdefault("cast", CAST)
    with pytest.raises(ValidationError) as caught:
        configure_run("1912", **kwargs)
    assert counts() == before
    return " ".join(caught.value.message_dict[field])


def test_a_valid_configuration_makes_a_ready_run_with_its_cast():
    run = configure_run("1912", cast=CAST, seed=7, days=0.5, schedule="simultaneous", hot_memory_limit=30,
                        reflection_ticks=[20, 40])
    assert run.target_ticks == 240 and run.seed == 7 and run.hot_memory_limit == 30
    assert sorted(run.agents.values_list("persona__key", flat=True)) == sorted(CAST)
    assert all(a.asleep and a.location_id == a.persona.home_node_id for a in run.agents.select_related("persona"))
    assert run.warnings == []


def test_no_cast_means_every_persona():
    run = configure_run("1912", ticks=10)
    assert run.agents.count() == 33


def test_soft_compaction_chars_not_below_hard():
    message = refused("compaction_soft_chars", compaction_soft_chars=900_000, compaction_hard_chars=800_000)
    assert "must be below the hard limit (800,000)" in message
    assert "must be below" in refused("compaction_soft_chars", compaction_soft_chars=5000, compaction_hard_chars=5000)


def test_fatigue_warning_not_below_its_limit():
    assert "must come before the forced sleep at the fatigue limit (80)" in refused("fatigue_warning",
                                                                                    fatigue_warning=90)


def test_cast_of_fewer_than_two():
    assert "at least two personas (this one has 1)" in refused("cast", cast=["harold_ashcombe"])
    assert "at least two" in refused("cast", cast=[])


def test_unknown_persona_in_cast():
    assert "no persona 'nobody'" in refused("cast", cast=["harold_ashcombe", "nobody"])


def test_length_of_zero():
    assert "at least one tick" in refused("ticks", ticks=0)
    assert "more than zero days" in refused("days", days=0)
    assert "not both" in refused("ticks", ticks=5, days=1)


def test_reflection_ticks_must_be_ticks_of_the_day():
    assert "0–479" in refused("reflection_ticks", reflection_ticks=[15, 480])
    assert "a list of ticks" in refused("reflection_ticks", reflection_ticks="15, 30")
    assert "not 'x'" in refused("reflection_ticks", reflection_ticks=[15, "x"])
    assert "listed twice" in refused("reflection_ticks", reflection_ticks=[15, 15])


def test_unknown_parameter_name():
    assert "unknown run parameter 'hot_memory'" in refused("hot_memory", hot_memory=10)


def test_field_types_and_choices_come_from_the_model():
    assert "not a valid choice" in refused("schedule", schedule="whenever")
    assert "between 0 and 1" in refused("malformed_rate", malformed_rate=1.5)


def test_unknown_scenario_and_profile():
    before = counts()
    with pytest.raises(ValidationError) as caught:
        configure_run("1066", cast=CAST)
    assert "no scenario '1066'" in caught.value.message_dict["scenario"][0]
    assert "no model profile 'gpt'" in refused("profile", profile="gpt")
    assert counts() == before


def test_several_errors_at_once_each_at_its_field():
    before = counts()
    with pytest.raises(ValidationError) as caught:
        configure_run("1912", cast=["harold_ashcombe"], ticks=0, fatigue_warning=100)
    assert {"cast", "ticks", "fatigue_warning"} <= set(caught.value.message_dict)
    assert counts() == before


def test_a_profile_whose_key_is_unset_is_a_warning_not_an_error(monkeypatch):
    monkeypatch.delenv("VOYAGE_TEST_UNSET_KEY", raising=False)
    profile = ModelProfile.objects.create(name="remote", kind=ModelProfile.OPENAI, base_url="http://127.0.0.1:9/v1",
                                          api_key_env="VOYAGE_TEST_UNSET_KEY")
    run = configure_run("1912", cast=CAST, profile="remote")
    assert run.profile == profile
    assert "$VOYAGE_TEST_UNSET_KEY, which is not set" in run.warnings[0]
    monkeypatch.setenv("VOYAGE_TEST_UNSET_KEY", "sk-x")
    assert configure_run("1912", cast=CAST, profile=profile).warnings == []


def test_clone_keeps_the_configuration_and_may_change_the_seed():
    run = configure_run("1912", cast=CAST, seed=3, ticks=40, hot_memory_limit=20, schedule="simultaneous")
    same = clone_run(run)
    other = clone_run(run, seed=99)
    for clone in (same, other):
        assert clone.pk != run.pk and clone.state == Run.QUEUED and clone.tick == 0
        assert (clone.target_ticks, clone.hot_memory_limit, clone.schedule) == (40, 20, "simultaneous")
        assert sorted(clone.agents.values_list("persona__key", flat=True)) == sorted(CAST)
    assert same.seed == 3 and other.seed == 99


def test_replay_needs_recorded_ticks_and_copies_the_cast():
    from tests.oracle import assert_same_transcript
    from voyage.engine.runner import advance

    run = configure_run("1912", cast=CAST, seed=5, ticks=12)
    before = counts()
    with pytest.raises(ValidationError) as caught:
        replay_run(run)
    assert "nothing to replay" in caught.value.message_dict["replay_of"][0] and counts() == before
    advance(run, 12)
    replay = replay_run(run)
    assert replay.replay_of == run and replay.target_ticks == 12 and replay.profile is None
    advance(replay, 12)
    assert_same_transcript(replay, run)


def test_a_started_run_refuses_changes_except_budget_and_length_growing():
    run = configure_run("1912", cast=CAST, ticks=40, budget_tokens=1000)
    update_run_params(run, hot_memory_limit=10)  # not started: anything goes
    Run.objects.filter(pk=run.pk).update(tick=5, state=Run.PAUSED)
    with pytest.raises(ValidationError) as caught:
        update_run_params(run, hot_memory_limit=20, seed=4)
    assert "can no longer change" in caught.value.message_dict["hot_memory_limit"][0]
    assert "seed" in caught.value.message_dict
    with pytest.raises(ValidationError) as caught:
        update_run_params(run, target_ticks=30)
    assert "may only grow (it is 40)" in caught.value.message_dict["target_ticks"][0]
    with pytest.raises(ValidationError) as caught:
        update_run_params(run, budget_tokens=500)
    assert "may only grow" in caught.value.message_dict["budget_tokens"][0]
    run.refresh_from_db()
    assert (run.hot_memory_limit, run.seed, run.target_ticks, run.budget_tokens) == (10, 1912, 40, 1000)
    update_run_params(run, target_ticks=80, budget_tokens=5000)
    run.refresh_from_db()
    assert (run.target_ticks, run.budget_tokens) == (80, 5000)


def test_an_unstarted_run_is_checked_by_the_same_rules():
    run = configure_run("1912", cast=CAST)
    with pytest.raises(ValidationError) as caught:
        update_run_params(run, compaction_soft_chars=900_000)
    assert "below the hard limit" in caught.value.message_dict["compaction_soft_chars"][0]
    run.refresh_from_db()
    assert run.compaction_soft_chars == 160_000


def test_rules_are_plain_functions():
    assert rule_errors({"compaction_soft_chars": 10, "compaction_hard_chars": 20, "fatigue_warning": 1,
                        "fatigue_limit": 2, "reflection_ticks": [0, 479]}) == {}
    assert set(rule_errors({"fatigue_warning": 3, "fatigue_limit": 3, "reflection_ticks": [True]})) == {
        "fatigue_warning", "reflection_ticks"}


def test_a_configured_run_waits_for_start(queued, django_capture_on_commit_callbacks):
    """Ready to start is not started: a worker's rescue leaves it alone until control.start queues it."""
    from voyage.runs import control, tasks

    run = configure_run("1912", cast=CAST, ticks=10)
    assert run.pk not in tasks.rescue_runs(unclaimed_too=True)
    assert [q for q in queued if q[0] == run.pk] == []  # (other tests' runs may be active)
    with django_capture_on_commit_callbacks(execute=True):
        control.start(run.pk)
    assert [q for q in queued if q[0] == run.pk] == [(run.pk, 0)]


def test_the_context_layout_is_configured_cloned_and_checked():
    run = configure_run("1912", cast=CAST, ticks=10, context_layout="cached")
    assert run.context_layout == "cached" and clone_run(run).context_layout == "cached"
    before = Run.objects.count()
    with pytest.raises(ValidationError) as refused:
        configure_run("1912", cast=CAST, ticks=10, context_layout="tidy")
    assert "context_layout" in refused.value.message_dict and Run.objects.count() == before


def test_a_real_model_defaults_to_the_cached_layout_and_the_offline_policy_to_the_seed_layout():
    real = ModelProfile.objects.create(name="real", kind=ModelProfile.OPENAI, base_url="http://127.0.0.1:9/v1")
    offline = ModelProfile.objects.create(name="scripted", kind=ModelProfile.OFFLINE)
    assert configure_run("1912", cast=CAST, ticks=10, profile=real).context_layout == "cached"
    assert configure_run("1912", cast=CAST, ticks=10, profile=offline).context_layout == "seed"
    assert configure_run("1912", cast=CAST, ticks=10).context_layout == "seed"
    assert configure_run("1912", cast=CAST, ticks=10, profile=real, context_layout="").context_layout == "cached"
    chosen = configure_run("1912", cast=CAST, ticks=10, profile=real, context_layout="seed")
    assert chosen.context_layout == "seed" and clone_run(chosen).context_layout == "seed"


@pytest.mark.parametrize("ahead", [-1, 9, "two"])
def test_run_ahead_is_a_whole_number_of_ticks_from_0_to_8(ahead):
    message = refused("run_ahead", schedule="simultaneous", run_ahead=ahead)
    assert message == (f"run_ahead is the ticks an agent may run ahead of the slowest agent: a whole number from 0 "
                       f"(lock-step) to 8; got {ahead!r}")


def test_run_ahead_is_configured_cloned_replayed_and_kept_once_started():
    from voyage.engine.runner import advance

    assert configure_run("1912", cast=CAST, ticks=4).run_ahead == 2  # the default
    run = configure_run("1912", cast=CAST, ticks=4, schedule="simultaneous", run_ahead=0)
    assert Run.objects.get(pk=run.pk).run_ahead == 0 and clone_run(run).run_ahead == 0
    with pytest.raises(ValidationError) as caught:
        update_run_params(run, run_ahead=9)
    assert "from 0 (lock-step) to 8; got 9" in caught.value.message_dict["run_ahead"][0]
    update_run_params(run, run_ahead=5)
    run.refresh_from_db()
    advance(run, 4)
    assert replay_run(run).run_ahead == 5
    with pytest.raises(ValidationError) as caught:
        update_run_params(run, run_ahead=1)
    assert "can no longer change" in caught.value.message_dict["run_ahead"][0]
