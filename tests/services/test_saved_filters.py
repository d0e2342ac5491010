"""Saved filters: a user's named filter sets of a list; save, rename, delete; no events."""

import pytest
from django.contrib.auth.models import User

from poimen.models import Event, SavedFilter
from poimen.services import (
    InputError,
    saved_filter_delete,
    saved_filter_query,
    saved_filter_rename,
    saved_filter_save,
)


@pytest.fixture
def other(db):
    return User.objects.create_user("otto", password="otto-reads-things")


def test_saved_with_its_query_tidied_and_no_event(reviewer):
    saved = saved_filter_save(
        user=reviewer,
        list_name="exclusions",
        name="  skills   to release ",
        query="sort=closeness&kind=skill&q=&after=abc",
    )
    assert saved.name == "skills to release"
    assert saved.query == "kind=skill&sort=closeness"
    assert not Event.objects.exists()


def test_a_name_is_unique_per_user_and_list(reviewer, other):
    saved_filter_save(user=reviewer, list_name="exclusions", name="mine", query="kind=skill")
    with pytest.raises(InputError, match="already have a saved filter named “mine” on exclusions"):
        saved_filter_save(user=reviewer, list_name="exclusions", name="mine", query="")
    # Another list, another user: the same name is free.
    saved_filter_save(user=reviewer, list_name="near_misses", name="mine", query="")
    saved_filter_save(user=other, list_name="exclusions", name="mine", query="")
    assert SavedFilter.objects.count() == 3


@pytest.mark.parametrize("name", ["", "   ", "x" * 101])
def test_a_name_of_1_to_100_characters(reviewer, name):
    with pytest.raises(InputError, match="1 to 100 characters"):
        saved_filter_save(user=reviewer, list_name="exclusions", name=name, query="")
    assert not SavedFilter.objects.exists()


def test_an_unknown_list_is_refused(reviewer):
    with pytest.raises(InputError, match="list 'audit' is not one of exclusions, near_misses"):
        saved_filter_save(user=reviewer, list_name="audit", name="x", query="")


def test_rename_and_delete_are_the_owners_alone(reviewer, other):
    saved = saved_filter_save(user=reviewer, list_name="exclusions", name="a", query="")
    saved_filter_save(user=reviewer, list_name="exclusions", name="b", query="")
    with pytest.raises(InputError, match="already have a saved filter named “b”"):
        saved_filter_rename(saved=saved, user=reviewer, name="b")
    with pytest.raises(InputError, match="someone else's"):
        saved_filter_rename(saved=saved, user=other, name="c")
    with pytest.raises(InputError, match="someone else's"):
        saved_filter_delete(saved=saved, user=other)
    saved_filter_rename(saved=saved, user=reviewer, name="c")
    assert SavedFilter.objects.get(pk=saved.pk).name == "c"
    saved_filter_delete(saved=saved, user=reviewer)
    assert list(SavedFilter.objects.values_list("name", flat=True)) == ["b"]
    assert not Event.objects.exists()


def test_the_query_is_kept_in_a_stable_order():
    assert saved_filter_query("b=2&a=1&a=0") == "a=0&a=1&b=2"
    assert saved_filter_query("") == ""
