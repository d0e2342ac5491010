"""The review guidelines: each save a new version with an event; bad input refused by name."""

import pytest

from poimen.models import Event, GuidelinesVersion
from poimen.selectors import guidelines_current, guidelines_history
from poimen.services import InputError, guidelines_edit


def test_each_save_is_a_version_and_an_event(tuner):
    first = guidelines_edit(actor=tuner, text="Confirm copies.\r\n\r\nRelease quotes.")
    second = guidelines_edit(actor=tuner, text="Confirm copies.", note="  shorter   ")
    assert guidelines_current() == second
    assert [v.pk for v in guidelines_history()] == [second.pk, first.pk]
    assert GuidelinesVersion.objects.get(pk=first.pk).text == "Confirm copies.\n\nRelease quotes."
    events = Event.objects.filter(type=Event.Type.GUIDELINES_CHANGED).order_by("id")
    assert [e.data for e in events] == [
        {"version": first.pk, "characters": 32},
        {"version": second.pk, "characters": 15, "note": "shorter"},
    ]
    assert all(e.actor == tuner for e in events)
    assert "guidelines version" in events[0].describe()


@pytest.mark.parametrize(
    ("text", "said"),
    [("   ", "need some text"), ("x" * 50_001, "at most 50,000 characters")],
)
def test_empty_or_too_long_guidelines_are_refused(tuner, text, said):
    with pytest.raises(InputError, match=said):
        guidelines_edit(actor=tuner, text=text)
    assert not GuidelinesVersion.objects.exists()
    assert not Event.objects.filter(type=Event.Type.GUIDELINES_CHANGED).exists()


def test_saving_the_same_text_again_is_refused(tuner):
    guidelines_edit(actor=tuner, text="Confirm copies.")
    with pytest.raises(InputError, match="unchanged"):
        guidelines_edit(actor=tuner, text="Confirm copies.\n")
    assert GuidelinesVersion.objects.count() == 1
