"""The audit log's hash chain: what an event's hash covers, and how the chain is walked.

Each event's hash is SHA-256 over its predecessor's hash and its own content (type, kind,
actor, run, record, artifact, time, data), as CloudTrail's digest files chain; the first
event's predecessor is GENESIS. A forged, deleted or reordered event breaks the chain from
there on; events removed from the end are found against a checkpoint kept elsewhere
(`audit_checkpoint`). No Django here beyond reading an Event's attributes: the migration that
fills the chain in, the manager that extends it and `verify_audit` all ask this module.
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


def event_content(event) -> bytes:
    """What an event's hash covers, as canonical JSON."""
    row = [getattr(event, name) for name in CONTENT_FIELDS]
    row[-1] = _time(row[-1])
    row.append(_canonical(event.data))
    return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )


def chained_hash(previous: str, event) -> str:
    return hashlib.sha256(previous.encode("ascii") + b"\n" + event_content(event)).hexdigest()


def chain(previous: str, events: Iterable) -> str:
    """Set each event's `hash` after `previous`; return the last hash (the new head)."""
    for event in events:
        event.hash = previous = chained_hash(previous, event)
    return previous


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


def walk(events: Iterator, *, at_id: int | None = None) -> Walked:
    """Recompute the chain over `events` (in id order), stopping at the first that does not
    fit; `at_id` also keeps the count and hash at that id (a checkpoint's last event)."""
    walked = Walked()
    for event in events:
        expected = chained_hash(walked.head, event)
        if event.hash != expected:
            why = (
                "its content was changed, or an event before it was removed or changed"
                if event.hash
                else "it has no hash: written around the audit log's one writer"
            )
            walked.broken = Break(event.pk, event.type, event.created_at, why)
            return walked
        walked.events += 1
        walked.last_id, walked.head = event.pk, expected
        if event.pk == at_id:
            walked.at = (walked.events, expected)
    return walked
