"""The audit log proves itself: every event is chained to its predecessor by a hash, on both
databases, whoever writes; verify_audit finds a forged, a deleted or a reordered event, and a
checkpoint kept elsewhere finds events removed from the end, even with the head rewritten."""

import json
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from poimen.ledger.audit_chain import GENESIS, chained_hash, content_hash
from poimen.models import AuditHead, Event
from poimen.services.audit import audit_verify
from tests.factories import manage

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chained_as_committed")]


def tamper(sql: str, params=()):
    """What the table's owner can do: step around the append-only trigger, then write."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # as ALTER TABLE … DISABLE TRIGGER USER would
            cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        if connection.vendor == "postgresql":  # SET LOCAL outlives a savepoint
            cursor.execute("SET LOCAL session_replication_role = DEFAULT")


def logged(n: int, *, start: int = 0) -> list[Event]:
    events = [
        Event.objects.log("threshold_changed", kind="skill", data={"n": i, "x": 0.5})
        for i in range(start, start + n - 2)
    ]
    batch = [
        Event.objects.log("status_changed", data={"n": i, "big": 1e16}, save=False)
        for i in range(2)
    ]
    Event.objects.log_many(batch)
    return events + batch


def verify_fails() -> str:
    with pytest.raises(CommandError) as failed:
        call_command("verify_audit")
    assert failed.value.returncode == 1
    return str(failed.value)


def test_events_written_one_by_one_and_in_batches_form_one_chain(capsys):
    events = logged(6)
    previous = GENESIS
    stored = list(Event.objects.order_by("pk"))
    assert [e.seq for e in stored] == [1, 2, 3, 4, 5, 6]
    for event in stored:
        assert event.content_hash == content_hash(event)
        # the same step in Python (SQLite) and in the seal trigger (PostgreSQL)
        assert event.hash == chained_hash(previous, event.content_hash)
        previous = event.hash
    assert AuditHead.objects.get().hash == previous
    assert [e.pk for e in stored] == [e.pk for e in events]
    call_command("verify_audit")
    assert "6 events, the chain intact" in capsys.readouterr().out
    verified = Event.objects.filter(type="audit_verified").get()
    assert verified.data == {"ok": True, "events": 6}


def test_a_forged_event_is_named(capsys):
    events = logged(5)
    tamper(
        "UPDATE poimen_event SET data = %s WHERE id = %s",
        [json.dumps({"n": 99, "x": 0.5}), events[2].pk],
    )
    assert f"event {events[2].pk} (threshold_changed at" in verify_fails()
    verified = Event.objects.filter(type="audit_verified").get()
    assert verified.data["ok"] is False and verified.data["events"] == 2


def test_an_event_deleted_from_the_middle_is_found_at_its_successor():
    events = logged(5)
    tamper("DELETE FROM poimen_event WHERE id = %s", [events[1].pk])
    assert f"event {events[2].pk} " in verify_fails()


def test_events_removed_from_the_end_are_found_against_the_head():
    logged(5)
    last = Event.objects.order_by("-pk")[:2]
    tamper("DELETE FROM poimen_event WHERE id IN (%s, %s)", [e.pk for e in last])
    assert "the chain's head records 5 events" in verify_fails()


def test_a_checkpoint_finds_a_truncation_even_with_the_head_rewritten(tmp_path, capsys):
    logged(5)
    checkpoint = tmp_path / "audit-checkpoint.json"
    call_command("audit_checkpoint", output=str(checkpoint))
    kept = json.loads(checkpoint.read_text())
    assert kept["events"] == 5 and kept["hash"] == AuditHead.objects.get().hash
    logged(3, start=10)
    call_command("verify_audit", checkpoint=str(checkpoint))
    assert "the chain and the checkpoint intact" in capsys.readouterr().out
    # Every event gone, the head set back as if nothing had been written: only the
    # checkpoint kept elsewhere knows.
    tamper("DELETE FROM poimen_event")
    AuditHead.objects.filter(pk=1).update(events=0, last_id=None, hash=GENESIS)
    with pytest.raises(CommandError) as failed:
        call_command("verify_audit", checkpoint=str(checkpoint))
    assert f"ends at event {kept['last_id']}, which is gone" in str(failed.value)


def test_a_log_rewritten_whole_is_found_by_the_checkpoint(tmp_path):
    events = logged(4)
    checkpoint = tmp_path / "kept.json"
    call_command("audit_checkpoint", output=str(checkpoint))
    # A forger who recomputes every hash after their change passes the chain, not the
    # checkpoint.
    tamper("UPDATE poimen_event SET data = %s WHERE id = %s", [json.dumps({"n": 7}), events[0].pk])
    previous = GENESIS
    for event in Event.objects.order_by("pk"):
        forged = content_hash(event)
        previous = chained_hash(previous, forged)
        tamper(
            "UPDATE poimen_event SET content_hash = %s, hash = %s WHERE id = %s",
            [forged, previous, event.pk],
        )
    AuditHead.objects.filter(pk=1).update(hash=previous)
    assert audit_verify().ok
    with pytest.raises(CommandError) as failed:
        call_command("verify_audit", checkpoint=str(checkpoint))
    assert "is not the checkpoint's" in str(failed.value)


def test_the_migration_chains_the_events_there_were():
    logged(4)
    tamper("UPDATE poimen_event SET hash = '', seq = NULL")
    assert "never chained" in verify_fails()
    # as they were before migration 0023
    tamper("UPDATE poimen_event SET hash = '', seq = NULL, content_hash = ''")
    AuditHead.objects.all().delete()
    migration = __import__("poimen.migrations.0023_audit_chain", fromlist=["chain_fill"])
    editor = SimpleNamespace(connection=connection, execute=connection.cursor().execute)
    migration.chain_fill(apps, editor)
    assert audit_verify().ok


WRITER = """
from django.db import transaction
from poimen.models import Event
for i in range(10):
    if i % 2:
        Event.objects.log("status_changed", data={"i": i})
    else:
        with transaction.atomic():
            batch = [Event.objects.log("status_changed", save=False) for j in range(3)]
            Event.objects.log_many(batch)
"""


@pytest.mark.django_db(transaction=True)
def test_concurrent_writing_processes_keep_one_chain(database):
    writers = [manage("shell", "-c", WRITER, env=database.env) for _ in range(4)]
    for writer in writers:
        _, errors = writer.communicate(timeout=120)
        assert writer.returncode == 0, errors.decode()
    assert database.value("SELECT count(*) FROM poimen_event") == 4 * (5 + 5 * 3)
    verify = manage("verify_audit", env=database.env)
    out, errors = verify.communicate(timeout=120)
    assert verify.returncode == 0, out.decode() + errors.decode()
    assert "80 events, the chain intact" in out.decode()


@pytest.mark.django_db(transaction=True)
def test_two_transactions_that_find_the_head_gone_at_once_keep_one_chain(database):
    """After a flush of every table the first seal re-creates the head row; a second
    transaction sealing at that moment waits on the new row, then chains after it (it used to
    fail with a duplicate key). The first seals at once and holds its transaction open."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite chains in Python, one writer at a time")
    import threading

    import psycopg

    url = database.env["DATABASE_URL"].replace("postgres://", "postgresql://")
    AuditHead.objects.all().delete()
    first, second = psycopg.connect(url), psycopg.connect(url)
    insert = (
        "INSERT INTO poimen_event (type, kind, data, created_at, content_hash, hash)"
        " VALUES ('status_changed', '', '{}', now(), %s, '')"
    )
    sealing = "SET CONSTRAINTS poimen_event_seal IMMEDIATE"
    first.execute(insert, ("a" * 64,))
    first.execute(sealing)  # the head re-created, uncommitted, its row held
    failures = []

    def seal_second():
        try:
            with second.transaction():
                second.execute(insert, ("b" * 64,))
                second.execute(sealing)  # waits on the first's head row
        except psycopg.Error as error:
            failures.append(error)

    waiting = threading.Thread(target=seal_second)
    waiting.start()
    waiting.join(timeout=1)
    assert waiting.is_alive()  # blocked on the first's uncommitted head
    first.commit()
    waiting.join(timeout=30)
    first.close(), second.close()
    assert failures == []
    (one, first_hash), (two, second_hash) = database.rows(
        "SELECT seq, hash FROM poimen_event ORDER BY seq"
    )
    assert (one, two) == (1, 2)
    assert first_hash == chained_hash(GENESIS, "a" * 64)
    assert second_hash == chained_hash(first_hash, "b" * 64)
