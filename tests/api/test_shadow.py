"""Shadow mode: a token's records are decided and recorded, the answer says what would have
happened, the client keeps every record, and the desk shows those decisions apart."""

import json

import pytest
from django.core.management import call_command

from poimen.agent.client import Client
from poimen.models import ApiToken, Event, IngestRun, Record
from poimen.services.tokens import api_token_create
from tests.api.conftest import ApiClient
from tests.conftest import UNRELATED, demo_skill

CHECK = "/api/v1/check"


@pytest.fixture
def shadow_api(client, api_user):
    return ApiClient(
        client, api_token_create(username=api_user.username, name="s", shadow=True).raw
    )


def _copy_and_genuine(skill):
    return {
        "records": [
            {"id": "copy", "text": f"Sure, here it is:\n\n{skill.text}", "role": "assistant"},
            {"id": "genuine", "text": UNRELATED, "role": "user"},
        ]
    }


def test_a_shadow_answer_says_what_would_have_happened_and_records_it(shadow_api, make_artifact):
    skill = make_artifact(name="release-notes")
    answer = shadow_api.post(CHECK, _copy_and_genuine(skill)).json()
    assert answer["shadow"] is True
    assert [r["status"] for r in answer["results"]] == ["excluded", "evidence"]
    copy = Record.objects.get(external_id="copy")
    assert copy.status == "excluded" and copy.run.shadow
    assert "shadow" in str(copy.run)


def test_an_enforcing_tokens_answer_is_not_shadow_and_its_run_apart(api, shadow_api, make_artifact):
    skill = make_artifact(name="release-notes")
    assert api.post(CHECK, _copy_and_genuine(skill)).json()["shadow"] is False
    shadow_api.post(CHECK, {"records": [{"id": "other", "text": skill.text}]})
    assert sorted(IngestRun.objects.values_list("shadow", flat=True)) == [False, True]


@pytest.mark.django_db(transaction=True)
def test_the_client_keeps_every_record_of_a_shadow_answer(live_server, api_user):
    raw = api_token_create(username=api_user.username, name="s", shadow=True).raw
    guard = Client(live_server.url, raw, timeout=10, on_error="raise")
    guard.register("skill", "release-notes", demo_skill("release-notes"))
    pasted = f"{UNRELATED}\n\n{demo_skill('release-notes')}\n\n{UNRELATED}"
    copy, redacted, genuine = guard.check(
        [
            {"id": 1, "text": demo_skill("release-notes")},
            {"id": 2, "text": pasted},
            {"id": 3, "text": UNRELATED},
        ]
    )
    assert (copy.status, copy.shadow, copy.keep) == ("excluded", True, True)
    assert copy.text_to_keep == demo_skill("release-notes")
    assert (redacted.status, redacted.keep, redacted.text_to_keep) == ("redacted", True, pasted)
    assert (genuine.status, genuine.keep) == ("evidence", True)


def test_the_desk_shows_shadow_decisions_apart(shadow_api, api, make_artifact, reviewer):
    from django.test import Client as DeskClient

    logged_in = DeskClient()
    logged_in.force_login(reviewer)
    skill = make_artifact(name="release-notes")
    shadow_api.post(CHECK, _copy_and_genuine(skill))
    api.post(CHECK, {"records": [{"id": "enforced", "text": skill.text}]})
    shadowed = Record.objects.get(external_id="copy")
    enforced = Record.objects.get(external_id="enforced")

    page = logged_in.get(f"/records/{shadowed.pk}/").content.decode()
    assert page.count("data-shadow") == 2  # beside the status, and on the run
    assert "data-shadow" not in logged_in.get(f"/records/{enforced.pk}/").content.decode()

    rows = logged_in.get("/exclusions/").content.decode()
    shadow_row = rows[rows.index(f'id="row-{shadowed.pk}"') :].split("</tr>")[0]
    enforced_row = rows[rows.index(f'id="row-{enforced.pk}"') :].split("</tr>")[0]
    assert "data-shadow" in shadow_row and "data-shadow" not in enforced_row
    assert f"#{shadowed.run_id} " in rows and "(shadow)</option>" in rows  # the run filter
    only_shadow = logged_in.get("/exclusions/", {"run": shadowed.run_id}).content.decode()
    assert f'id="row-{shadowed.pk}"' in only_shadow
    assert f'id="row-{enforced.pk}"' not in only_shadow

    assert "data-shadow" in logged_in.get("/runs/").content.decode()


def test_commands_make_a_shadow_token_and_switch_it(api_user, capsys, client):
    call_command("create_api_token", api_user.username, "--name", "trial", "--shadow")
    raw = capsys.readouterr().out.strip().splitlines()[-1]
    token = ApiToken.objects.get(name="trial")
    assert token.shadow
    guarded = ApiClient(client, raw)
    assert guarded.post(CHECK, {"records": [{"id": 1, "text": UNRELATED}]}).json()["shadow"]

    call_command("api_token_mode", token.prefix, "enforce")
    assert "enforce" in capsys.readouterr().out
    token.refresh_from_db()
    assert not token.shadow
    event = Event.objects.get(type="api_token_mode_changed")
    assert (event.data["old"], event.data["new"]) == ("shadow", "enforce")
    # The process that switched it answers the next request in the new mode.
    answer = guarded.post(CHECK, {"records": [{"id": 2, "text": UNRELATED}]}).json()
    assert answer["shadow"] is False
    call_command("api_token_mode", token.prefix, "enforce")  # already: nothing logged
    assert Event.objects.filter(type="api_token_mode_changed").count() == 1
    assert json.dumps(event.data)
