import pytest

from voyage.records.transcript import markdown

pytestmark = pytest.mark.django_db


def test_transcript_reads_as_a_voyage(one_day_run):
    text = markdown(one_day_run)
    assert text.startswith(f"# {one_day_run}")
    assert "## Day 1" in text and "## Day 2" in text  # the bulletin comes at dawn of day 2
    assert "wake together" in text and "Harold Ashcombe" in text
    assert "reaches rung 1 (Name)" in text
    assert "Nightfall" in text and "📰" in text
    assert "[thought " not in text  # monologues stay private, even in the transcript
