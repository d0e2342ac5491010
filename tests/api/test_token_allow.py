"""create_api_token --allow: on a deployment the admin changes nothing, so the command that
makes a token is where its user is given what the token needs, and it warns of a token that
could do nothing."""

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from poimen.models import Event
from tests.api.conftest import ApiClient

BODY = {"records": [{"id": 1, "text": "An ordinary note."}], "store": False}
ARTIFACT = {"kind": "skill", "name": "notes", "text": "Write the notes in the morning, briefly."}


def _token(capsys, *args) -> tuple[str, str, str]:
    call_command("create_api_token", *args)
    out, err = capsys.readouterr()
    return out.strip().splitlines()[-1], out, err


def test_allow_check_gives_the_user_checking_and_nothing_more(client, db, capsys):
    User.objects.create_user("hook")
    raw, out, err = _token(capsys, "hook", "--name", "laptop", "--allow", "check")
    assert "may poimen.check_records;" in out and err == ""
    api = ApiClient(client, raw)
    assert api.post("/api/v1/check", BODY).status_code == 200
    assert api.post("/api/v1/artifacts", ARTIFACT).status_code == 403
    event = Event.objects.get(type="api_token_created")
    assert event.data["granted"] == ["poimen.check_records"]


def test_allow_both_lets_the_token_register_as_well(client, db, capsys):
    User.objects.create_user("hook")
    allow = ("--allow", "check", "--allow", "register")
    raw, _, _ = _token(capsys, "hook", "--name", "laptop", *allow)
    assert ApiClient(client, raw).post("/api/v1/artifacts", ARTIFACT).status_code == 201


def test_a_token_whose_user_holds_no_api_permission_is_warned_of(db, capsys):
    User.objects.create_user("carol")
    raw, out, err = _token(capsys, "carol", "--name", "laptop")
    assert raw.startswith("poimen_") and "may do nothing yet" in out
    assert "carol holds neither poimen.check_records nor poimen.register_artifact" in err
    assert "--allow check" in err


def test_an_unknown_user_is_told_to_be_added_with_add_user(db):
    with pytest.raises(CommandError, match=r"no user 'dave': create it first \(add_user dave"):
        call_command("create_api_token", "dave", "--name", "x", "--allow", "check")


def test_allow_takes_only_the_api_permissions(db):
    User.objects.create_user("hook")
    with pytest.raises(CommandError, match="invalid choice: 'tune'"):
        call_command("create_api_token", "hook", "--name", "x", "--allow", "tune")
