"""The bridge between the database and filter/: artifacts both ways, policies, and the
filter's decision rule restated as a query so a threshold can be applied from stored matches.
"""

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import connection
from django.db.models import Exists, OuterRef, Q

from filter import ArtifactRecord, DerivedFilter, ShingleParams, ShinglingMismatch
from poimen.models import SHINGLE_DTYPE, Artifact, KindPolicy, Match
from poimen.restatements import restatement_condition

DEFAULT_THRESHOLD = KindPolicy._meta.get_field("threshold").default
DEFAULT_MIN_SHARED = KindPolicy._meta.get_field("min_shared").default


def report_floor() -> float:
    return settings.POIMEN_REPORT_FLOOR


def artifact_from_record(record: ArtifactRecord) -> Artifact:
    """An unsaved Artifact row holding `record` (whose params must be stated)."""
    return Artifact(
        kind=record.kind,
        name=record.name,
        sha256=record.sha256,
        text=record.text or "",
        shingle_normaliser=record.params.normaliser,
        shingle_k=record.params.k,
        shingle_hash=record.params.hash,
        shingles=np.ascontiguousarray(record.shingles, dtype=SHINGLE_DTYPE).tobytes(),
        n_tokens=record.n_tokens,
        emitted_at=record.emitted_at,
    )


def artifact_to_record(artifact: Artifact) -> ArtifactRecord:
    return ArtifactRecord(
        kind=artifact.kind,
        name=artifact.name,
        sha256=artifact.sha256,
        shingles=artifact.shingle_array,
        emitted_at=artifact.emitted_at,
        params=ShingleParams(
            normaliser=artifact.shingle_normaliser, k=artifact.shingle_k, hash=artifact.shingle_hash
        ),
        text=artifact.text or None,
        n_tokens=artifact.n_tokens,
    )


@dataclass(frozen=True)
class Policies:
    """Thresholds and minimum shared shingles per kind, as the database holds them now."""

    thresholds: dict[str, float]
    min_shared: dict[str, int]

    @classmethod
    def load(cls, *, lock: bool = False) -> "Policies":
        """The policies now; with `lock`, held (inside a transaction) until it ends, so that
        a threshold change waits for what is decided under them to be written."""
        if lock and connection.vendor == "postgresql":
            # SHARE: concurrent ingests read together; a threshold change's write waits.
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {KindPolicy._meta.db_table} IN SHARE MODE")
        rows = list(KindPolicy.objects.all())
        return cls(
            thresholds={p.kind: p.threshold for p in rows},
            min_shared={p.kind: p.min_shared for p in rows},
        )

    def threshold_for(self, kind: str) -> float:
        return self.thresholds.get(kind, DEFAULT_THRESHOLD)

    def min_shared_for(self, kind: str) -> int:
        return self.min_shared.get(kind, DEFAULT_MIN_SHARED)


@dataclass
class DbFilter:
    """A DerivedFilter over the database's artifacts, and the way back from its matches to rows."""

    filter: DerivedFilter
    artifact_ids: dict[tuple[str, str, str], int]
    policies: Policies


class ArtifactUnusable(Exception):
    """An artifact the filter can neither use nor re-shingle: matching without it is unsafe."""


def filter_from_db(*, kind: str | None = None) -> DbFilter:
    """A filter holding every stored artifact (of `kind`, when given) and the stored policies."""
    policies = Policies.load()
    derived_filter = DerivedFilter(
        thresholds=policies.thresholds,
        default_threshold=DEFAULT_THRESHOLD,
        min_shared={k: v for k, v in policies.min_shared.items()},
        min_overlap=report_floor(),
    )
    artifacts = Artifact.objects.order_by("pk")
    if kind is not None:
        artifacts = artifacts.filter(kind=kind)
    ids, reshingled = {}, []
    for artifact in artifacts.iterator(chunk_size=500):
        record = artifact_to_record(artifact)
        try:
            added = derived_filter.add(record)
        except ShinglingMismatch as error:
            raise ArtifactUnusable(str(error)) from None
        if added.params != record.params:
            reshingled.append((artifact.pk, added))
        ids[(artifact.kind, artifact.name, artifact.sha256)] = artifact.pk
    _store_reshingled(reshingled)
    return DbFilter(filter=derived_filter, artifact_ids=ids, policies=policies)


def _store_reshingled(reshingled: list[tuple[int, ArtifactRecord]]) -> None:
    """Keep shingles the filter had to make again from the text (after the shingling
    parameters changed), so that it is done once, not on every run."""
    for pk, record in reshingled:
        fresh = artifact_from_record(record)
        Artifact.objects.filter(pk=pk).update(
            shingle_normaliser=fresh.shingle_normaliser,
            shingle_k=fresh.shingle_k,
            shingle_hash=fresh.shingle_hash,
            shingles=fresh.shingles,
            n_tokens=fresh.n_tokens,
        )


def stored_coverage(coverage: dict[str, float], matches: Iterable) -> dict[str, dict]:
    """The per-kind coverage worth keeping on a record: what a threshold change needs to redo
    the filter's "stitched from several artifacts of one kind" rule without the text."""
    floor = report_floor()
    kept = {}
    for kind, share in coverage.items():
        if share < floor:
            continue  # a threshold is never below the floor, so this can never decide
        of_kind = [m for m in matches if m.kind == kind]
        kept[kind] = {
            "coverage": round(share, 6),
            "artifacts": len(of_kind),
            "shared": sum(m.shared for m in of_kind),
        }
    return kept


def derived_condition(policies: Policies, kinds: Iterable[str]) -> Q:
    """The filter's decision as a Q on Record, from stored matches and stored coverage.

    A record is derived when one of its matches exceeds its kind's threshold with enough shared
    shingles, or when several artifacts of one kind together cover more than the threshold.
    """
    kinds = sorted(set(kinds))
    exceeding = Q(pk__in=[])
    for kind in kinds:
        exceeding |= Q(
            artifact__kind=kind,
            overlap__gt=policies.threshold_for(kind),
            shared__gte=policies.min_shared_for(kind),
        )
    condition = Q(Exists(Match.objects.filter(exceeding, record=OuterRef("pk"))))
    condition |= restatement_condition(policies)
    for kind in kinds:
        condition |= Q(
            **{
                f"coverage__{kind}__coverage__gt": policies.threshold_for(kind),
                f"coverage__{kind}__artifacts__gt": 1,
                f"coverage__{kind}__shared__gte": policies.min_shared_for(kind),
            }
        )
    return condition
