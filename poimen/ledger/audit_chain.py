"""The audit log's hash chain: what an event's hash covers, and how the chain is walked.

An event's `content_hash` is SHA-256 over its content (type, kind, actor, run, record,
artifact, time, data) as canonical JSON, made when the event is; its `hash` is SHA-256 over
its predecessor's hash and its content hash (hex digits, concatenated), as CloudTrail's digest
files chain; the first event's predecessor is GENESIS, and `seq` is its place in the chain.
A forged, deleted or reordered event breaks the chain from there on; events removed from the
end are found against a checkpoint kept elsewhere (`audit_checkpoint`).

Where the chain is extended: on PostgreSQL, at commit, by a deferred trigger (SEAL_SQL), so
that the chain's head is held only while a transaction commits, never while it works; on
SQLite, by `EventManager.log_many` (SQLite has one writer at a time anyway). Both compute
`chained_hash`; tests/services/test_audit_chain.py holds them to each other.
"""

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

GENESIS = "0" * 64
# The columns an event's hash covers, in this order (the time and data are canonicalised).
CONTENT_FIELDS = ("type", "kind", "actor_id", "run_id", "record_id", "artifact_id", "created_at")


def _canonical(value):
    """`value` as it reads back from any database's JSON column: a float with no fraction is
    the integer it equals (PostgreSQL's jsonb gives 1e16 back as 10000000000000000)."""
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _time(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def content_hash(event) -> str:
    """SHA-256 of what an event says, as canonical JSON."""
    row = [getattr(event, name) for name in CONTENT_FIELDS]
    row[-1] = _time(row[-1])
    row.append(_canonical(event.data))
    content = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def chained_hash(previous: str, content: str) -> str:
    """The chain's step (SEAL_SQL's `sha256(convert_to(previous || content, 'UTF8'))`)."""
    return hashlib.sha256((previous + content).encode("ascii")).hexdigest()


def chain(previous: str, events: Iterable, *, seq: int = 0) -> str:
    """Set each event's `seq` and `hash` after `previous` (the `seq`-th event's); return the
    last hash (the new head)."""
    for event in events:
        seq += 1
        event.seq, event.hash = seq, (previous := chained_hash(previous, event.content_hash))
    return previous


# PostgreSQL: the events a transaction inserted are chained at its commit (a deferred
# constraint trigger; its first firing chains them all, in the order they were inserted, and
# writes the head once); the head row is locked then, for the moment of the commit.
# SECURITY DEFINER: it runs as the tables' owner, so the server's role needs no UPDATE on
# events; the append-only trigger lets this one update pass (an unsealed event given its place
# and hash, nothing else changed).
SEAL_SQL = """
CREATE OR REPLACE FUNCTION poimen_event_seal() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    place bigint;
    head text;
    unsealed record;
    ids bigint[] := '{}';
    places bigint[] := '{}';
    hashes text[] := '{}';
BEGIN
    IF (SELECT seq FROM poimen_event WHERE id = NEW.id) IS NOT NULL THEN
        RETURN NULL;  -- sealed already, with the first of its transaction's events
    END IF;
    SELECT events, hash INTO place, head FROM poimen_audithead WHERE id = 1 FOR UPDATE;
    IF NOT FOUND THEN
        -- the head row gone (a flush of every table): again from the last sealed event. Two
        -- transactions may find it gone at once; the second waits on the first's row, then
        -- inserts nothing and takes the head as the first left it.
        INSERT INTO poimen_audithead (id, events, last_id, hash)
        SELECT 1, coalesce(max(seq), 0), NULL, '{genesis}' FROM poimen_event
        ON CONFLICT (id) DO NOTHING;
        IF FOUND THEN
            UPDATE poimen_audithead h
               SET hash = coalesce((SELECT e.hash FROM poimen_event e WHERE e.seq = h.events),
                                   h.hash)
             WHERE id = 1;
        END IF;
        SELECT events, hash INTO place, head FROM poimen_audithead WHERE id = 1 FOR UPDATE;
    END IF;
    -- Every event this transaction inserted (others' are not visible until they commit), in
    -- the order it inserted them: chained at once, the head written once.
    FOR unsealed IN SELECT id, content_hash FROM poimen_event WHERE seq IS NULL ORDER BY id LOOP
        place := place + 1;
        head := encode(sha256(convert_to(head || unsealed.content_hash, 'UTF8')), 'hex');
        ids := ids || unsealed.id;
        places := places || place;
        hashes := hashes || head;
    END LOOP;
    UPDATE poimen_event e SET seq = v.place, hash = v.hash
      FROM unnest(ids, places, hashes) AS v(id, place, hash)
     WHERE e.id = v.id;
    UPDATE poimen_audithead SET events = place, last_id = ids[cardinality(ids)], hash = head
     WHERE id = 1;
    RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS poimen_event_seal ON poimen_event;
CREATE CONSTRAINT TRIGGER poimen_event_seal
    AFTER INSERT ON poimen_event DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION poimen_event_seal();

CREATE OR REPLACE FUNCTION poimen_event_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.seq IS NULL AND OLD.hash = '' AND NEW.seq IS NOT NULL
       AND (NEW.type, NEW.kind, NEW.actor_id, NEW.run_id, NEW.record_id, NEW.artifact_id,
            NEW.data, NEW.created_at, NEW.content_hash)
           IS NOT DISTINCT FROM
           (OLD.type, OLD.kind, OLD.actor_id, OLD.run_id, OLD.record_id, OLD.artifact_id,
            OLD.data, OLD.created_at, OLD.content_hash)
    THEN
        RETURN NEW;  -- sealed: given its place in the chain and its hash, once
    END IF;
    RAISE EXCEPTION 'poimen_event is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
""".replace("{genesis}", GENESIS)


@dataclass(frozen=True)
class Break:
    """The first event that does not fit: its id, type and time, and why."""

    event_id: int
    type: str
    created_at: datetime
    why: str

    def __str__(self) -> str:
        return f"event {self.event_id} ({self.type} at {_time(self.created_at)}): {self.why}"


@dataclass
class Walked:
    """What a walk of the chain found: how many events, the last id and hash, the first
    break (None when every event fits)."""

    events: int = 0
    last_id: int | None = None
    head: str = GENESIS
    broken: Break | None = None
    # At the id asked for (a checkpoint's last event): the count and hash there.
    at: tuple[int, str] | None = None


def _misfit(walked: Walked, event) -> str | None:
    """Why `event` does not fit after what was walked, or None."""
    if not event.hash or event.seq is None:
        return "it was never chained: written around the audit log's one writer"
    if event.seq != walked.events + 1:
        return f"it is number {event.seq} of the chain, after {walked.events}: events removed"
    if content_hash(event) != event.content_hash:
        return "its content was changed"
    if chained_hash(walked.head, event.content_hash) != event.hash:
        return "it does not follow the event before it: an event removed, or its hash changed"
    return None


def walk(events: Iterator, *, at_id: int | None = None) -> Walked:
    """Recompute the chain over `events` (in chain order), stopping at the first that does
    not fit; `at_id` also keeps the count and hash at that id (a checkpoint's last event)."""
    walked = Walked()
    for event in events:
        why = _misfit(walked, event)
        if why:
            walked.broken = Break(event.pk, event.type, event.created_at, why)
            return walked
        expected = event.hash
        walked.events += 1
        walked.last_id, walked.head = event.pk, expected
        if event.pk == at_id:
            walked.at = (walked.events, expected)
    return walked
