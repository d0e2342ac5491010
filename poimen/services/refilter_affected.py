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

import threading

import numpy as np

from filter import DEFAULT_PARAMS
from filter.align import MIN_ANCHORS
from filter.index import ShingleIndex
from filter.shingles import texts_shingles
from poimen.db.keyset import keyset_pages
from poimen.decision.index_version import live_index
from poimen.decision.policies import Policies
from poimen.models import Artifact, Record
from poimen.services.refilter import RefilterResult, refilter_page

_PAGE = 2_000


class RecordShingles:
    """Stored records' shingles, by record id, extended with the records stored since."""

    def __init__(self):
        self._index = ShingleIndex()
        self._last = 0
        self._lock = threading.Lock()

    def current(self) -> ShingleIndex:
        with self._lock:
            fresh = Record.objects.filter(pk__gt=self._last).only("pk", "text")
            for page in keyset_pages(fresh, _PAGE):
                shingles, firsts, _ = texts_shingles([r.text for r in page], DEFAULT_PARAMS.k)
                for record, start, end in zip(page, firsts[:-1], firsts[1:], strict=True):
                    self._index.add(record.pk, shingles[start:end])
                self._last = page[-1].pk
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
    artifacts = list(artifacts)
    result = RefilterResult()
    ids = records_affected(artifacts, artifact_index.policies)
    records = Record.objects.filter(pk__in=ids).select_related("review")
    for page in keyset_pages(records, _PAGE):
        refilter_page(page, artifact_index=artifact_index, result=result)
    return result
