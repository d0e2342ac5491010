"""Tokens: made shown once and stored hashed, revoked, refused with JSON 401/403."""

import time

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone

from poimen.models import ApiToken, Event
from poimen.services.tokens import api_tokens_forget
from tests.api.conftest import ApiClient

CHECK = "/api/v1/check"
BODY = {"records": [{"id": 1, "text": "An ordinary note."}], "store": False}


def test_create_api_token_prints_the_token_last_and_stores_only_its_hash(api_user, capsys):
    call_command("create_api_token", api_user.username, "--name", "laptop hook")
    raw = capsys.readouterr().out.strip().splitlines()[-1]
    token = ApiToken.objects.get()
    assert raw.startswith("poimen_") and raw.startswith(token.prefix)
    assert raw not in {token.key_sha256, token.prefix, token.name}
    assert token.name == "laptop hook" and token.user == api_user
    assert Event.objects.filter(type="api_token_created").exists()


def test_create_api_token_for_an_unknown_user_is_a_named_error(db):
    with pytest.raises(CommandError, match="no user 'nobody'"):
        call_command("create_api_token", "nobody", "--name", "x")


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer poimen_not-a-token", "Basic abc"])
def test_no_or_an_unknown_token_is_401_json(client, db, header):
    extra = {"HTTP_AUTHORIZATION": header} if header else {}
    answer = client.post(CHECK, BODY, content_type="application/json", **extra)
    assert answer.status_code == 401
    assert answer["Content-Type"] == "application/json; charset=utf-8"
    assert answer.json()["detail"]


def test_a_revoked_token_is_401_and_says_so(client, api_user, make_token, capsys):
    raw = make_token(api_user)
    assert ApiClient(client, raw).post(CHECK, BODY).status_code == 200
    call_command("revoke_api_token", raw[:15])
    answer = ApiClient(client, raw).post(CHECK, BODY)
    assert answer.status_code == 401 and "revoked" in answer.json()["detail"]
    assert Event.objects.filter(type="api_token_revoked").exists()


def test_a_user_without_the_permission_is_403_json(client, make_token, db):
    user = User.objects.create_user("reader")
    answer = ApiClient(client, make_token(user)).post(CHECK, BODY)
    assert answer.status_code == 403
    assert "poimen.check_records" in answer.json()["detail"]
    register = ApiClient(client, make_token(user)).post(
        "/api/v1/artifacts", {"kind": "skill", "name": "x", "text": "y z"}
    )
    assert register.status_code == 403 and "poimen.register_artifact" in register.json()["detail"]


def test_last_use_is_noted(api):
    assert ApiToken.objects.get().last_used_at is None
    api.post(CHECK, BODY)
    assert ApiToken.objects.get().last_used_at is not None


def test_tokens_are_listed_read_only_in_the_admin(admin_client, api_user, make_token):
    make_token(api_user, name="ci runner")
    page = admin_client.get("/admin/poimen/apitoken/")
    assert page.status_code == 200 and b"ci runner" in page.content
    assert admin_client.get("/admin/poimen/apitoken/add/").status_code == 403


def test_a_check_costs_two_queries_the_token_with_its_permissions_and_the_index_state(
    api, make_artifact, django_assert_max_num_queries, settings
):
    settings.POIMEN_API_TOKEN_CACHE_SECONDS = 0  # the token read on every request
    make_artifact(name="release-notes")
    api.post(CHECK, BODY)  # the index loaded, last use noted
    with django_assert_max_num_queries(2):
        assert api.post(CHECK, BODY).status_code == 200
    with django_assert_max_num_queries(2):
        assert api.get("/api/v1/artifacts/0").status_code == 404


def test_a_permission_taken_away_holds_once_the_processs_token_lapses(api, api_user, settings):
    from django.contrib.auth.models import Permission

    settings.POIMEN_API_TOKEN_CACHE_SECONDS = 0.3
    assert api.post(CHECK, BODY).status_code == 200
    api_user.user_permissions.remove(Permission.objects.get(codename="check_records"))
    time.sleep(0.35)
    assert api.post(CHECK, BODY).status_code == 403


def test_a_user_made_inactive_is_401_once_the_processs_token_lapses(api, api_user, settings):
    settings.POIMEN_API_TOKEN_CACHE_SECONDS = 0
    assert api.post(CHECK, BODY).status_code == 200
    User.objects.filter(pk=api_user.pk).update(is_active=False)
    answer = api.post(CHECK, BODY)
    assert answer.status_code == 401 and "inactive" in answer.json()["detail"]


def test_a_token_is_read_once_in_its_seconds_and_a_revoke_holds_at_once_here(
    client, api_user, make_token, django_assert_max_num_queries
):
    """A server process keeps a token it recognised: the query that reads it with its user's
    permissions cost more than the check. A revoke in this process holds at once; one made in
    another process (its row written, here by hand) holds when the seconds run out."""
    from poimen.services.tokens import api_token_revoke

    raw, other = make_token(api_user), make_token(api_user, name="other")
    api = ApiClient(client, raw)
    assert api.post(CHECK, BODY).status_code == 200
    with django_assert_max_num_queries(1):  # the index state alone
        assert api.post(CHECK, BODY).status_code == 200
    api_token_revoke(token=raw)
    assert api.post(CHECK, BODY).status_code == 401

    elsewhere = ApiClient(client, other)
    assert elsewhere.post(CHECK, BODY).status_code == 200
    ApiToken.objects.filter(name="other").update(revoked_at=timezone.now())
    assert elsewhere.post(CHECK, BODY).status_code == 200  # not read again yet
    api_tokens_forget()  # as when POIMEN_API_TOKEN_CACHE_SECONDS have run out
    assert elsewhere.post(CHECK, BODY).status_code == 401


def test_the_tokens_permissions_are_those_django_gives_its_user(db, make_token):
    """Read with the token in one query, they agree with user.has_perm (ModelBackend):
    directly, through a group, as a superuser, or not at all."""
    from django.contrib.auth.models import Group, Permission

    from poimen.services.tokens import API_PERMISSIONS, api_token_authenticate

    check = Permission.objects.get(codename="check_records")
    group = Group.objects.create(name="memory systems")
    group.permissions.add(Permission.objects.get(codename="register_artifact"))
    users = [
        User.objects.create_user("none"),
        User.objects.create_user("direct"),
        User.objects.create_user("grouped"),
        User.objects.create_user("both"),
        User.objects.create_superuser("root"),
    ]
    users[1].user_permissions.add(check)
    users[2].groups.add(group)
    users[3].user_permissions.add(check)
    users[3].groups.add(group)
    seen = set()
    for user in users:
        token = api_token_authenticate(make_token(user))
        fresh = User.objects.get(pk=user.pk)
        assert token.permissions == {p for p in API_PERMISSIONS if fresh.has_perm(p)}
        seen.add(token.permissions)
    assert len(seen) == 4  # none, check only, register only, both
