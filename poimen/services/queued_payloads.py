"""What a queued run keeps in the broker's Redis beside the queue: each batch's records, under
a key a batch, until its worker reads them; and word of the batches that ended, which wakes
the waiting command."""

import dataclasses
import json
import logging
import operator

from django.conf import settings

from poimen.readers import Candidate

log = logging.getLogger(__name__)

# A queued ingest's records wait in the broker's Redis under a key of their own; the task
# message names the key. Celery decodes every message's body in the worker's main process
# before handing it to the pool process, which decodes it again: a megabyte of records in the
# message cost the main process as much CPU a batch as a third of the batch's checking.
PAYLOAD_PREFIX = "poimen:batch:"
# Left by a command that was killed: gone after a day.
PAYLOAD_EXPIRY_SECONDS = 24 * 3600
# A list a queued run, of the numbers of its batches that ended (batch_ended_tell).
ENDED_PREFIX = "poimen:ended:"
# A worker's word that it refused a job's batches (its database is not the command's).
REFUSED_PREFIX = "poimen:refused:"
_payload_store = None

# A payload is one line of JSON, the candidates' fields but their text as rows in this order
# with the byte length of each text, then the texts themselves, UTF-8, one after another (the
# readers refuse text that does not encode). The texts are nearly all of a batch's megabyte:
# copied as bytes they cost next to nothing to pack and unpack, where JSON escapes and parses
# every character, and zlib took the sending command as long again as JSON did (2x smaller,
# when 16 batches in flight hold about 20 MB and a link between machines carries a worker's
# few MB a second many times over). Tuples of the fields, not dataclasses.asdict, which copies
# each record's metadata deeply: asdict alone cost the command as much as reading the input.
_FIELDS = [f.name for f in dataclasses.fields(Candidate) if f.name != "text"]
_fields_of = operator.attrgetter(*_FIELDS)
_TEXT_AT = [f.name for f in dataclasses.fields(Candidate)].index("text")


def payload_store():
    """This process's client of the broker's Redis, which waits out a restart of it as the
    Celery connection does (a minute, then the error)."""
    global _payload_store
    if _payload_store is None:
        import redis
        from redis.backoff import ExponentialBackoff
        from redis.retry import Retry

        _payload_store = redis.Redis.from_url(
            settings.CELERY_BROKER_URL,
            retry=Retry(ExponentialBackoff(cap=1, base=0.05), 60),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        )
    return _payload_store


def payload_key(job: str, number: int) -> str:
    return f"{PAYLOAD_PREFIX}{job}:{number}"


def payload_pack(candidates: list[Candidate]) -> bytes:
    texts = [c.text.encode("utf-8") for c in candidates]
    head = {
        "fields": _FIELDS,
        "rows": [_fields_of(c) for c in candidates],
        "text_bytes": [len(text) for text in texts],
    }
    return b"".join([json.dumps(head).encode("utf-8"), b"\n", *texts])


def payload_unpack(packed: bytes) -> list[Candidate]:
    """The candidates payload_pack packed; a named error for a payload packed by another
    version of poimen (the command and the workers run different ones)."""
    end = packed.index(b"\n")
    head = json.loads(packed[:end])
    if head["fields"] != _FIELDS:
        raise ValueError(
            f"the batch's records carry the fields {head['fields']}, this worker's poimen "
            f"reads {_FIELDS}: run the same version of poimen on the command and the workers"
        )
    body, at, candidates = memoryview(packed), end + 1, []
    for row, size in zip(head["rows"], head["text_bytes"], strict=True):
        text = str(body[at : at + size], "utf-8")
        candidates.append(Candidate(*row[:_TEXT_AT], text, *row[_TEXT_AT:]))
        at += size
    return candidates


def _ended_key(job: str) -> str:
    return f"{ENDED_PREFIX}{job}"


def batch_ended_tell(job: str, number: int) -> None:
    """Wake the command waiting on `job`: a batch of it is written or failed (or was already).
    Only word: the command asks the database what ended, and asks it anyway now and then, so
    word that does not arrive (the broker restarted) delays the run and loses nothing."""
    import redis

    try:
        store = payload_store().pipeline(transaction=False)
        store.rpush(_ended_key(job), number).expire(_ended_key(job), PAYLOAD_EXPIRY_SECONDS)
        store.execute()
    except (redis.ConnectionError, redis.TimeoutError) as error:
        log.warning("batch %s of %s: could not tell the waiting command (%s)", number, job, error)


def batch_ended_wait(job: str, seconds: float) -> None:
    """Wait up to `seconds` for word that a batch of `job` ended; the word waiting is taken
    with it, all of it answered by the one look at the database that follows."""
    store = payload_store()
    if store.blpop([_ended_key(job)], timeout=seconds) is not None:
        store.delete(_ended_key(job))


def payload_put(job: str, number: int, candidates: list[Candidate]) -> None:
    payload_store().set(
        payload_key(job, number), payload_pack(candidates), ex=PAYLOAD_EXPIRY_SECONDS
    )


def payload_get(job: str, number: int) -> list[Candidate] | None:
    """The batch's candidates; None when the broker lost them (the command sends them again)."""
    packed = payload_store().get(payload_key(job, number))
    return None if packed is None else payload_unpack(packed)


def batch_refusal_tell(job: str, why: str) -> None:
    """Tell the command waiting on `job` that a worker refuses its batches, and why."""
    payload_store().set(REFUSED_PREFIX + job, why.encode("utf-8"), ex=PAYLOAD_EXPIRY_SECONDS)


def batch_refusal(job: str) -> str | None:
    """Why a worker refused `job`'s batches, or None (also when the broker's Redis cannot be
    asked now: the next look asks again)."""
    import redis

    try:
        said = payload_store().get(REFUSED_PREFIX + job)
    except (redis.ConnectionError, redis.TimeoutError, ValueError):
        return None
    return said.decode("utf-8") if said else None
