"""A one-time password from add_user is replaced at the first login: every page but the
password page sends there until it is, and the old password stops working (issue 24)."""

import pytest
from django.test import Client
from django.urls import reverse

from poimen.services import user_add

pytestmark = pytest.mark.django_db


def logged_in_as(username: str, password: str) -> Client | None:
    """A client logged in through the login form (as a person would), or None if refused."""
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": password})
    return client if response.status_code == 302 else None


def test_a_new_member_is_sent_to_replace_the_one_time_password():
    user, one_time = user_add(username="alice", role="reviewer")
    client = logged_in_as("alice", one_time)
    assert client is not None
    for url in (reverse("overview"), reverse("exclusions"), reverse("team")):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"] == reverse("password_change")
    page = client.get(reverse("password_change"))
    assert page.status_code == 200 and b"data-one-time" in page.content

    changed = client.post(
        reverse("password_change"),
        {
            "old_password": one_time,
            "new_password1": "alice-chose-this-1",
            "new_password2": "alice-chose-this-1",
        },
    )
    assert changed.status_code == 302
    assert client.get(reverse("overview")).status_code == 200
    assert logged_in_as("alice", one_time) is None
    again = logged_in_as("alice", "alice-chose-this-1")
    assert again is not None
    assert again.get(reverse("overview")).status_code == 200  # asked once only


def test_an_account_made_otherwise_is_not_asked(logged_in):
    assert logged_in.get(reverse("overview")).status_code == 200
