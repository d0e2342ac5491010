"""Tokens: made shown once and stored hashed, revoked, refused with JSON 401/403."""

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from poimen.models import ApiToken, Event
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
