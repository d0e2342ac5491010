"""The audit log proving itself: `audit_verify` walks the hash chain (and, given one, a
checkpoint kept elsewhere) and records what it found as an `audit_verified` event;
`audit_checkpoint` is the chain's head as an operator keeps it."""

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.utils import timezone

from poimen.ledger.audit_chain import CONTENT_FIELDS, walk
from poimen.models import AuditHead, Event
from poimen.services.common import InputError

PAGE = 5000
CHECKPOINT_KEYS = ("events", "last_id", "hash", "at")


@dataclass
class AuditVerification:
    events: int
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _events_in_order() -> Iterator[Event]:
    """Every event in chain order, a page at a time, with only what the hash covers; then
    any event never chained (written around the one writer), which breaks the chain."""
    after = 0
    columns = [name.removesuffix("_id") for name in CONTENT_FIELDS]
    columns += ["data", "content_hash", "seq", "hash"]
    chained = Event.objects.filter(seq__isnull=False).order_by("seq").only(*columns)
    while True:
        page = list(chained.filter(seq__gt=after)[:PAGE])
        if not page:
            break
        yield from page
        after = page[-1].seq
    yield from Event.objects.filter(seq__isnull=True).order_by("pk").only(*columns)[:1]


def checkpoint_read(path: Path) -> dict:
    """A checkpoint file as `audit_checkpoint` wrote it, or an InputError naming the file."""
    try:
        checkpoint = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: not a checkpoint ({error})") from None
    if not isinstance(checkpoint, dict) or set(CHECKPOINT_KEYS) - set(checkpoint):
        raise InputError(f"{path}: a checkpoint holds {', '.join(CHECKPOINT_KEYS)}")
    return checkpoint


def audit_verify(*, checkpoint: dict | None = None, actor=None) -> AuditVerification:
    """Recompute the chain; name the first event that does not fit, events removed from the
    end (against the head, and against `checkpoint`); write an audit_verified event."""
    last_id = checkpoint["last_id"] if checkpoint else None
    walked = walk(_events_in_order(), at_id=last_id)
    result = AuditVerification(events=walked.events)
    if walked.broken:
        result.problems.append(str(walked.broken))
    if checkpoint and not walked.broken and checkpoint["last_id"] is not None:
        if walked.at is None:
            result.problems.append(
                f"the checkpoint of {checkpoint['at']} ends at event {checkpoint['last_id']}, "
                "which is gone: events were removed from the end"
            )
        elif walked.at != (checkpoint["events"], checkpoint["hash"]):
            result.problems.append(
                f"the chain at event {checkpoint['last_id']} is not the checkpoint's of "
                f"{checkpoint['at']} ({walked.at[0]} events, {walked.at[1][:12]}… against "
                f"{checkpoint['events']}, {checkpoint['hash'][:12]}…): the log was rewritten"
            )
    head = AuditHead.objects.filter(pk=1).first()
    if (
        head
        and not walked.broken
        and (head.events, head.last_id) != (walked.events, walked.last_id)
    ):
        result.problems.append(
            f"the chain's head records {head.events} events ending at event {head.last_id}; "
            f"the log holds {walked.events} ending at {walked.last_id}: events were removed"
        )
    data = {"ok": result.ok, "events": result.events}
    if result.problems:
        data["broken"] = result.problems[0]
    Event.objects.log(Event.Type.AUDIT_VERIFIED, actor=actor, data=data)
    return result


def audit_checkpoint() -> dict:
    """The chain's head now (events, last id, hash, time), for an operator to keep elsewhere."""
    head = AuditHead.objects.filter(pk=1).first() or AuditHead()
    at = timezone.now().isoformat(timespec="seconds")
    return {"events": head.events, "last_id": head.last_id, "hash": head.hash, "at": at}
