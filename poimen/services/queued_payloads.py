"""Where a queued batch's records wait for their worker: the broker's Redis, a key a batch."""

import dataclasses
import json
import zlib

from django.conf import settings

from poimen.readers import Candidate

# A queued ingest's records wait in the broker's Redis under a key of their own, compressed;
# the task message names the key. Celery decodes every message's body in the worker's main
# process before handing it to the pool process, which decodes it again: a megabyte of records
# in the message cost the main process as much CPU a batch as a third of the batch's checking.
PAYLOAD_PREFIX = "poimen:batch:"
# Left by a command that was killed: gone after a day.
PAYLOAD_EXPIRY_SECONDS = 24 * 3600
_payload_store = None


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


def payload_put(job: str, number: int, candidates: list[Candidate]) -> None:
    rows = [dataclasses.asdict(c) for c in candidates]
    packed = zlib.compress(json.dumps(rows).encode("utf-8"), 1)
    payload_store().set(payload_key(job, number), packed, ex=PAYLOAD_EXPIRY_SECONDS)


def payload_get(job: str, number: int) -> list[Candidate] | None:
    """The batch's candidates; None when the broker lost them (the command sends them again)."""
    packed = payload_store().get(payload_key(job, number))
    if packed is None:
        return None
    return [Candidate(**row) for row in json.loads(zlib.decompress(packed))]
