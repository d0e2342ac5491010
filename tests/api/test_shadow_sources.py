"""Shadow mode by source: a memory system's records (their `source`) are decided and recorded
but never withheld, whatever token sends them; set with source_mode or the admin, each change
an event; the desk shows those decisions apart."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from poimen.agent.client import Client
from poimen.models import Event, IngestRun, Record, ShadowSource
from poimen.services import source_mode
from poimen.services.sources import shadow_sources_forget
from poimen.services.tokens import api_token_create
from tests.conftest import UNRELATED, demo_skill

CHECK = "/api/v1/check"


@pytest.fixture(autouse=True)
def _read_afresh():
    shadow_sources_forget()
    yield
    shadow_sources_forget()


def _copies(skill, *sources):
    return {
        "records": [
            {"id": f"copy-{source}", "text": f"Sure:\n\n{skill.text}", "source": source}
            for source in sources
        ]
    }


def test_a_source_in_shadow_mode_is_recorded_apart_whatever_the_token(api, make_artifact):
    skill = make_artifact(name="release-notes")
    assert source_mode(source="mem0", shadow=True)
    answer = api.post(CHECK, _copies(skill, "mem0", "langgraph")).json()
    assert answer["shadow"] is False  # the token enforces
    shadowed, enforced = answer["results"]
    assert (shadowed["status"], shadowed["shadow"]) == ("excluded", True)
    assert (enforced["status"], enforced["shadow"]) == ("excluded", False)
    mem0 = Record.objects.get(external_id="copy-mem0")
    langgraph = Record.objects.get(external_id="copy-langgraph")
    assert mem0.run.shadow and not langgraph.run.shadow
    assert (answer["run"], answer["shadow_run"]) == (langgraph.run_id, mem0.run_id)
    # A request of shadowed records alone joins the shadow run, named `run`.
    again = api.post(CHECK, _copies(skill, "mem0") | {"store": False}).json()
    assert again["results"][0]["shadow"] is True and again["run"] is None
    assert IngestRun.objects.count() == 2


def test_back_to_enforcing_the_sources_records_are_not_shadow(api, make_artifact):
    skill = make_artifact(name="release-notes")
    source_mode(source="mem0", shadow=True)
    source_mode(source="mem0", shadow=False)
    answer = api.post(CHECK, _copies(skill, "mem0")).json()
    assert answer["results"][0]["shadow"] is False
    assert not Record.objects.get(external_id="copy-mem0").run.shadow
    events = Event.objects.filter(type="source_mode_changed").order_by("pk")
    assert [(e.data["old"], e.data["new"]) for e in events] == [
        ("enforce", "shadow"),
        ("shadow", "enforce"),
    ]
    assert "source: mem0" in events[0].describe()


@pytest.mark.django_db(transaction=True)
def test_the_client_keeps_a_shadow_sources_records(live_server, api_user):
    source_mode(source="mem0", shadow=True)
    raw = api_token_create(username=api_user.username, name="e").raw
    guard = Client(live_server.url, raw, timeout=10, on_error="raise")
    guard.register("skill", "release-notes", demo_skill("release-notes"))
    kept, withheld = guard.check(
        [
            {"id": 1, "text": demo_skill("release-notes"), "source": "mem0"},
            {"id": 2, "text": demo_skill("release-notes"), "source": "other"},
        ]
    )
    assert (kept.status, kept.shadow, kept.keep) == ("excluded", True, True)
    assert kept.text_to_keep == demo_skill("release-notes")
    assert (withheld.status, withheld.shadow, withheld.keep) == ("excluded", False, False)


def test_the_command_sets_lists_and_unsets_a_source(db, capsys):
    call_command("source_mode", "mem0", "shadow")
    assert "mem0: shadow" in capsys.readouterr().out
    call_command("source_mode", "mem0", "shadow")
    assert "(already)" in capsys.readouterr().out
    call_command("source_mode")
    assert capsys.readouterr().out.startswith("mem0: shadow since ")
    call_command("source_mode", "mem0", "enforce")
    assert not ShadowSource.objects.exists()
    assert Event.objects.filter(type="source_mode_changed").count() == 2
    with pytest.raises(CommandError, match="say the mode"):
        call_command("source_mode", "mem0")
    with pytest.raises(CommandError, match="1 to 255"):
        call_command("source_mode", " ", "shadow")


def test_the_admin_sets_and_unsets_a_source_with_an_event(admin_client, admin_user):
    added = admin_client.post("/admin/poimen/shadowsource/add/", {"source": "mem0"})
    assert added.status_code == 302, added.content[:500]
    row = ShadowSource.objects.get(source="mem0")
    event = Event.objects.get(type="source_mode_changed")
    assert (event.actor, event.data["new"]) == (admin_user, "shadow")
    deleted = admin_client.post(f"/admin/poimen/shadowsource/{row.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 302
    assert not ShadowSource.objects.exists()
    last = Event.objects.filter(type="source_mode_changed").latest("pk")
    assert (last.actor, last.data["new"]) == (admin_user, "enforce")


def test_the_desk_shows_a_shadow_sources_decisions_apart(api, make_artifact, reviewer):
    from django.test import Client as DeskClient

    desk = DeskClient()
    desk.force_login(reviewer)
    skill = make_artifact(name="release-notes")
    source_mode(source="mem0", shadow=True)
    api.post(CHECK, _copies(skill, "mem0", "langgraph"))
    shadowed = Record.objects.get(external_id="copy-mem0")
    enforced = Record.objects.get(external_id="copy-langgraph")
    assert "data-shadow" in desk.get(f"/records/{shadowed.pk}/").content.decode()
    assert "data-shadow" not in desk.get(f"/records/{enforced.pk}/").content.decode()
    runs = desk.get("/runs/").content.decode()
    assert "data-shadow" in runs and "data-shadow-sources" in runs and "mem0" in runs


def test_a_genuine_record_of_a_shadow_source_is_evidence_and_shadow(api):
    source_mode(source="mem0", shadow=True)
    answer = api.post(CHECK, {"records": [{"id": 1, "text": UNRELATED, "source": "mem0"}]})
    (result,) = answer.json()["results"]
    assert (result["status"], result["shadow"]) == ("evidence", True)
