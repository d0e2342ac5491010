"""Refilter of what a registration could change: the stored records that share enough
shingles with the new artifacts to match one, checked again by the refilter's own page
(services/refilter.py's refilter_page: the same decision, matches, events), the rest left.

Which records could: a match holds no more shared shingles than the record has anchors in the
artifact, and one with fewer than its kind's min_shared never counts (filter.DerivedFilter's
rule, the same bound its candidates use). So a record with fewer shared shingles than that with
every new artifact comes out of a full refilter as it went in, and is not read.

The records' shingles are found through an index of them (the artifact index's own structure,
records numbered by primary key) that a process builds once from the stored texts and extends
with the records stored since; it is this process's, not shared.
"""

import logging
import threading

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from filter import DEFAULT_PARAMS
from filter.align import MIN_ANCHORS
from filter.index import ShingleIndex
from filter.shingles import texts_shingles
from poimen.db.keyset import keyset_pages
from poimen.decision.index_version import live_index
from poimen.decision.policies import Policies
from poimen.models import Artifact, Record
from poimen.services.queued import celery_app
from poimen.services.refilter import RefilterResult, refilter_records

_PAGE = 2_000
log = logging.getLogger(__name__)
# The queue's task for a registration's refilter (poimen/tasks.py).
REFILTER_AFFECTED_TASK = "poimen.refilter_affected"


class RecordShingles:
    """Stored records' shingles, by record id, extended with the records stored since. Read
    again from the start when the rows it read are not the table's any more (a flushed or
    rolled-back table whose ids came back with other texts: the last one's sha256 or the
    count up to it moved)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._index, self._last, self._count, self._last_sha = ShingleIndex(), 0, 0, None

    def _still_the_table(self) -> bool:
        if not self._last:
            return True
        last = Record.objects.filter(pk=self._last).values_list("sha256", flat=True).first()
        return last == self._last_sha and (
            Record.objects.filter(pk__lte=self._last).count() == self._count
        )

    def current(self) -> ShingleIndex:
        with self._lock:
            if not self._still_the_table():
                self._reset()
            fresh = Record.objects.filter(pk__gt=self._last).only("pk", "text", "sha256")
            for page in keyset_pages(fresh, _PAGE):
                shingles, firsts, _ = texts_shingles([r.text for r in page], DEFAULT_PARAMS.k)
                for record, start, end in zip(page, firsts[:-1], firsts[1:], strict=True):
                    self._index.add(record.pk, shingles[start:end])
                self._last, self._last_sha = page[-1].pk, page[-1].sha256
                self._count += len(page)
            self._index.merge()
            return self._index


record_shingles = RecordShingles()


def records_affected(artifacts: list[Artifact], policies: Policies) -> list[int]:
    """Ids of the stored records that share at least min_shared shingles with one of
    `artifacts`."""
    index = record_shingles.current()
    affected: set[int] = set()
    for artifact in artifacts:
        _, records, _ = index.lookup(artifact.shingle_array)
        if not len(records):
            continue
        ids, counts = np.unique(records, return_counts=True)
        needed = max(MIN_ANCHORS, policies.min_shared_for(artifact.kind))
        affected.update(ids[counts >= needed].tolist())
    return sorted(affected)


def records_refilter_affected(*, artifacts, actor=None) -> RefilterResult:
    """Check again the stored records `artifacts` (new rows, registered and committed) could
    change, against every artifact; the others are left as they are."""
    artifact_index, _ = live_index.current()
    result = RefilterResult()
    ids = records_affected(list(artifacts), artifact_index.policies)
    refilter_records(ids, artifact_index=artifact_index, result=result, actor=actor)
    return result


def registration_refilter(artifacts: list[Artifact], *, actor=None) -> None:
    """What every registration path (services/artifacts.py: the API, add_artifact,
    import_artifacts, and through the API the hook and the adapters' injected blocks) calls
    with the artifacts it created: once the registration is committed, the records they could
    change are checked again, by the same decision. In this process (a registration's set is
    small: the records sharing min_shared shingles with one artifact), or, where
    CELERY_BROKER_URL is set, by a queue worker, so the request that registered does not wait
    for it."""
    ids = [artifact.pk for artifact in artifacts]
    if not ids:
        return
    actor_id = getattr(actor, "pk", None)
    if settings.CELERY_BROKER_URL:
        transaction.on_commit(lambda: _send(ids, actor_id))
    else:
        transaction.on_commit(lambda: registered_refilter(ids, actor_id))


def _send(ids: list[int], actor_id: int | None) -> None:
    """To the queue; where the broker cannot be reached, here (the registration is committed:
    its refilter is not to be lost with the message)."""
    try:
        celery_app().send_task(REFILTER_AFFECTED_TASK, args=[ids, actor_id])
    except Exception as error:  # kombu's and redis-py's connection errors have no common base
        log.warning("refilter of artifacts %s run here: the queue refused it (%s)", ids, error)
        registered_refilter(ids, actor_id)


def registered_refilter(ids: list[int], actor_id: int | None = None) -> RefilterResult:
    """records_refilter_affected for the artifacts with these ids (the queue's task body)."""
    actor = get_user_model().objects.filter(pk=actor_id).first() if actor_id else None
    return records_refilter_affected(artifacts=Artifact.objects.filter(pk__in=ids), actor=actor)
