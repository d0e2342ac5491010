"""The filter's decisions after ingest: refilter from the text, thresholds from the stored
matches, and verify_derived, which checks the evidence from the text again."""

from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from filter import match_passages
from poimen.artifact_index import ArtifactIndex, artifact_index_load
from poimen.checked import summarise
from poimen.derived_rule import across_kinds_in_force, derived_condition, mixed_from_stored
from poimen.keyset import keyset_pages
from poimen.models import (
    Artifact,
    Event,
    KindPolicy,
    Match,
    Record,
    Review,
    ThresholdChange,
)
from poimen.policies import Policies, report_floor
from poimen.record_decision import apply_checked
from poimen.redaction import StoredMatch, redactions_from_stored, stored_matches
from poimen.restatements import RESTATEMENT_KINDS
from poimen.services.common import InputError, batch_size_or_default, check_kind
from poimen.services.redecide import (
    DecisionCounts,
    decision_before,
    decision_events,
    records_redecide,
)


@dataclass(kw_only=True)
class RefilterResult(DecisionCounts):
    checked: int = 0
    matches: int = 0


DECISION_FIELDS = (
    "derived",
    "status",
    "coverage",
    "mixed_coverage",
    "best_overlap",
    "best_artifact_id",
    "cut_spans",
    "evidence_text",
)


def _decision_of(record: Record) -> tuple:
    return tuple(getattr(record, field) for field in DECISION_FIELDS)


def records_refilter(
    *, kind: str | None = None, batch_size: int | None = None, actor=None
) -> RefilterResult:
    """Check stored records again (against every artifact, or those of `kind`): matches are
    replaced, decisions and statuses updated. A reviewer's verdict is never overridden."""
    batch_size = batch_size_or_default(batch_size)
    started_at = refilter_start(kind)
    artifact_index = artifact_index_load(kind=kind)
    kinds = set(Artifact.objects.values_list("kind", flat=True))
    result = RefilterResult()
    records = Record.objects.select_related("review")
    for page in keyset_pages(records, batch_size):
        refilter_page(page, artifact_index=artifact_index, kind=kind, kinds=kinds, result=result)
    refilter_finish(kind=kind, started_at=started_at, result=result, actor=actor)
    return result


def refilter_start(kind: str | None):
    """Check the kind; the moment the refilter starts (what its event keeps)."""
    if kind is not None:
        check_known_kind(kind)
    return timezone.now()


def refilter_page(
    page: list[Record],
    *,
    artifact_index: ArtifactIndex,
    kind: str | None,
    kinds: set[str],
    result: RefilterResult,
    actor=None,
) -> None:
    """Check one page of stored records again and write what changed, in one transaction
    (the local refilter and the queue's workers both call it)."""
    policies = artifact_index.policies
    verdicts = artifact_index.filter.check_many([record.text for record in page])
    before = {r.pk: _decision_of(r) for r in page}
    decided_before = {r.pk: decision_before(r) for r in page}
    with transaction.atomic():
        stale = Match.objects.filter(record__in=page)
        if kind is not None:
            stale = stale.filter(artifact__kind=kind)
        stale.delete()
        # Only this kind is checked: the others' matches stay, and count across kinds.
        others = stored_matches(r.pk for r in page) if kind is not None else {}
        matches = []
        for record, verdict in zip(page, verdicts, strict=True):
            own = apply_checked(record, summarise(verdict, record.text), artifact_index)
            if kind is not None:
                # Only this kind was checked: keep what the record knows of the others.
                record.coverage = {
                    **{k: v for k, v in before[record.pk][2].items() if k != kind},
                    **record.coverage,
                }
                fresh = [StoredMatch(kind, m.overlap, m.shared, m.spans) for m in own]
                record.mixed_coverage = mixed_from_stored(
                    record.text, [*others.get(record.pk, []), *fresh]
                )
            matches.extend(own)
        Match.objects.bulk_create(matches)
        if kind is not None:
            # The decision query reads coverage from the table: store the new one first.
            covered = [
                r
                for r in page
                if (r.coverage, r.mixed_coverage) != (before[r.pk][2], before[r.pk][3])
            ]
            Record.objects.bulk_update(covered, ["coverage", "mixed_coverage"])
            _redo_best_and_derived(page, policies, kinds)
            # and the cuts from every kind's stored spans, not only this kind's
            redactions_from_stored(page, policies)
        counts = Counter()
        events = decision_events(
            page, decided_before, cause="refilter", actor=actor, counts=counts, policies=policies
        )
        result.count(counts)
        # Most records come out as they went in: write only those that changed.
        changed = [r for r in page if _decision_of(r) != before[r.pk]]
        Record.objects.bulk_update(changed, list(DECISION_FIELDS))
        Event.objects.bulk_create(events)
    result.checked += len(page)
    result.matches += len(matches)


def refilter_finish(*, kind: str | None, started_at, result: RefilterResult, actor=None) -> None:
    """One event for the whole run, so that the desk can tell which records it has re-checked
    (every record stored before `started_at`) even when no status changed."""
    Event.objects.log(
        Event.Type.RECORDS_REFILTERED,
        actor=actor,
        kind=kind or "",
        data={
            "kind": kind,
            "started_at": started_at.isoformat(),
            "checked": result.checked,
            "excluded": result.excluded,
            "released": result.released,
            "redacted": result.redacted,
            "kept_by_review": result.kept_by_review,
        },
    )


def _redo_best_and_derived(page: list[Record], policies: Policies, kinds: set[str]) -> None:
    """After matches of one kind were replaced: best match and decision from all stored ones."""
    ids = [r.pk for r in page]
    derived_ids = set(
        Record.objects.filter(pk__in=ids)
        .filter(derived_condition(policies, kinds))
        .values_list("pk", flat=True)
    )
    best = {}
    for match in Match.objects.filter(record_id__in=ids).order_by("record_id", "-overlap"):
        best.setdefault(match.record_id, match)
    for record in page:
        record.derived = record.pk in derived_ids
        top = best.get(record.pk)
        record.best_overlap = round(top.overlap, 6) if top else 0.0
        record.best_artifact_id = top.artifact_id if top else None


@dataclass(kw_only=True)
class ThresholdResult(DecisionCounts):
    kind: str
    old: float
    new: float


class ThresholdBelowFloor(InputError):
    """A threshold the stored matches cannot show the effect of."""


def threshold_check(value) -> float:
    """A threshold the stored matches can apply: a number from the reporting floor to 1. The
    one validation of a threshold: the tuning page's forms clean with it, threshold_change
    (the page's save and `set_threshold`) refuses with it."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not 0.0 <= number <= 1.0:  # NaN too
        raise InputError(f"a threshold is a number between 0 and 1, not {value!r}")
    floor = report_floor()
    if number < floor:
        raise ThresholdBelowFloor(
            f"{number:g} is below the reporting floor ({floor:g}): matches under the floor were "
            "never stored, so this threshold cannot be applied from them. A refilter is needed: "
            "lower POIMEN_REPORT_FLOOR and run `manage.py refilter` first."
        )
    return number


def check_known_kind(kind: str) -> str:
    """A kind some artifact has (or that has a policy already): a typo is refused, not
    turned into a new kind with no artifacts."""
    check_kind(kind)
    if kind in RESTATEMENT_KINDS:
        return kind
    if Artifact.objects.filter(kind=kind).exists() or KindPolicy.objects.filter(kind=kind).exists():
        return kind
    known = sorted(set(Artifact.objects.values_list("kind", flat=True)))
    raise InputError(f"no artifact is of kind {kind!r} (known: {', '.join(known) or 'none yet'})")


def threshold_change(*, kind: str, value: float, reason: str, actor=None) -> ThresholdResult:
    """Set `kind`'s threshold and apply it from the stored matches (no re-shingling): records
    the new value excludes or releases change status, each with an event, unless a reviewer's
    verdict holds them. Writes a ThresholdChange and a threshold_changed event."""
    check_known_kind(kind)
    value = threshold_check(value)
    if not (reason or "").strip():
        raise InputError("a threshold change needs a reason")
    with transaction.atomic():
        policy, _ = KindPolicy.objects.select_for_update(of=("self",)).get_or_create(kind=kind)
        old = policy.threshold
        policy.threshold = value
        policy.save(update_fields=["threshold"])
        ThresholdChange.objects.create(kind=kind, old=old, new=value, reason=reason, actor=actor)
        Event.objects.log(
            Event.Type.THRESHOLD_CHANGED,
            actor=actor,
            kind=kind,
            data={"old": old, "new": value, "reason": reason},
        )
        result = ThresholdResult(kind=kind, old=old, new=value)
        _threshold_apply(kind, value, old, reason, actor, result)
    return result


def _threshold_apply(kind, value, old, reason, actor, result: ThresholdResult) -> None:
    policies = Policies.load()
    kinds = set(Artifact.objects.values_list("kind", flat=True)) | {kind}
    touched = Record.objects.filter(
        Q(Exists(Match.objects.filter(record=OuterRef("pk"), artifact__kind=kind)))
        | Q(coverage__has_key=kind)
        | Q(mixed_coverage__kinds__has_key=kind)
        | Q(metadata__restatement=kind)
    )
    derived_now = set(
        touched.filter(derived_condition(policies, kinds)).values_list("pk", flat=True)
    )
    # Decided again: every record derived before or now, as what exceeds moves the cut of a
    # redaction too, not only the derived flag.
    ids = sorted(set(touched.filter(derived=True).values_list("pk", flat=True)) | derived_now)
    counts = Counter()
    changed = records_redecide(
        ids,
        derived=derived_now,
        policies=policies,
        cause="threshold_changed",
        actor=actor,
        data={"threshold": {"kind": kind, "old": old, "new": value}, "reason": reason},
        counts=counts,
    )
    result.count(counts)
    # Only the records whose decision moved were decided under the new value; the others'
    # matches keep the threshold their decision was made under.
    for start in range(0, len(changed), 1000):
        Match.objects.filter(
            artifact__kind=kind, record_id__in=changed[start : start + 1000]
        ).update(threshold=value)


@dataclass(frozen=True)
class Offender:
    record_id: int
    source: str
    external_id: str
    artifact: str
    kind: str
    overlap: float
    threshold: float
    # "text" for an evidence record, "evidence text" for a redacted one
    checked: str = "text"
    # a passage of this many shared shingles left in a redaction's evidence text, or None
    passage_shared: int | None = None

    def __str__(self) -> str:
        where = f"{self.source}:{self.external_id}" + (
            "" if self.checked == "text" else f" ({self.checked})"
        )
        if self.passage_shared is not None:
            return (
                f"{where} holds a passage of {self.kind}/{self.artifact} "
                f"({self.passage_shared} shared shingles)"
            )
        return (
            f"{where} matches {self.kind}/{self.artifact} "
            f"(overlap {self.overlap:.3f} > threshold {self.threshold})"
        )


@dataclass
class VerifyResult:
    checked: int = 0
    released_by_review: int = 0
    offenders: list[Offender] = field(default_factory=list)


def derived_verify(*, batch_size: int = 1000) -> VerifyResult:
    """The card's `mem verify --derived-filter`, on what reaches evidence: from the text, with
    today's artifacts and thresholds, no evidence record and no redacted record's evidence
    text may be derived, and a redaction's evidence text may hold no passage of min_shared
    shingles of the artifacts it was cut for (verify_redactions). Records a reviewer released
    (false positive) are counted apart; every other derived one is an offender."""
    artifact_index = artifact_index_load()
    result = VerifyResult()
    reaching = Record.objects.filter(
        status__in=[Record.Status.EVIDENCE, Record.Status.REDACTED]
    ).select_related("review")
    fields = ("pk", "source", "external_id", "status", "text", "evidence_text", "review")
    for page in keyset_pages(reaching.only(*fields), batch_size):
        texts = [record.evidence for record in page]
        verdicts = artifact_index.filter.check_many(texts)
        for record, text, verdict in zip(page, texts, verdicts, strict=True):
            result.checked += 1
            if not verdict.derived:
                continue
            if record.review and record.review.verdict == Review.Verdict.FALSE_POSITIVE:
                result.released_by_review += 1
                continue
            checked = summarise(verdict, text)
            kind, match = checked.decided_kind, checked.decided_match
            threshold = artifact_index.filter.threshold_for(kind)
            if checked.decided_across_kinds:  # artifacts of several kinds: the largest part
                match = next(m for m in checked.matches if m.kind == kind)
                overlap = checked.mixed.coverage
                threshold, _ = across_kinds_in_force(artifact_index.policies, checked.mixed.kinds)
            elif match is None:  # several artifacts of the kind together: name the largest part
                match = next(m for m in checked.matches if m.kind == kind)
                overlap = checked.coverage[kind]
            else:
                overlap = match.overlap
            result.offenders.append(
                Offender(
                    record_id=record.pk,
                    source=record.source,
                    external_id=record.external_id,
                    artifact=match.artifact[1],
                    kind=kind,
                    overlap=overlap,
                    threshold=threshold,
                    checked=_checked_name(record),
                )
            )
        result.offenders.extend(verify_redactions(page, artifact_index))
    return result


def _checked_name(record: Record) -> str:
    return "evidence text" if record.status == Record.Status.REDACTED else "text"


def verify_redactions(records: list[Record], artifact_index) -> list[Offender]:
    """The redacted records whose evidence text still holds a passage of at least its kind's
    min_shared shingles of an artifact it was cut for (one it has a stored match with): a cut
    that left part of a copy behind."""
    redacted = [r for r in records if r.status == Record.Status.REDACTED]
    artifacts = {pk: key for key, pk in artifact_index.artifact_ids.items()}
    by_key = {artifact.key: artifact for artifact in artifact_index.filter.artifacts}
    pairs = Match.objects.filter(record__in=redacted).values_list("record_id", "artifact_id")
    cut_for = {}
    for record_id, artifact_id in pairs:
        if artifact_id in artifacts:
            cut_for.setdefault(record_id, []).append(by_key[artifacts[artifact_id]])
    offenders = []
    for record in redacted:
        for artifact in cut_for.get(record.pk, []):
            min_shared = artifact_index.policies.min_shared_for(artifact.kind)
            shared = max(
                (p.shared for p in match_passages(record.evidence_text, artifact)), default=0
            )
            if shared >= min_shared:
                offenders.append(
                    Offender(
                        record_id=record.pk,
                        source=record.source,
                        external_id=record.external_id,
                        artifact=artifact.name,
                        kind=artifact.kind,
                        overlap=0.0,
                        threshold=artifact_index.policies.threshold_for(artifact.kind),
                        checked="evidence text",
                        passage_shared=shared,
                    )
                )
    return offenders
