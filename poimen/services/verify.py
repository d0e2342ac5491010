"""verify_derived: the evidence checked from its text again, with today's artifacts and
thresholds (the card's `mem verify --derived-filter`; docs/card.md)."""

from dataclasses import dataclass, field

from filter import match_passages
from filter.decide import BY_PASTE, BY_RESTATEMENT, decide
from poimen.db.keyset import keyset_pages
from poimen.decision.artifact_index import artifact_index_load
from poimen.decision.checked import check_texts
from poimen.decision.record_decision import checked_facts
from poimen.models import Event, Match, Record, Review


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
    # why a fresh decision would not leave it as evidence (filter.decide's BY_*)
    reason: str | None = None

    def __str__(self) -> str:
        where = f"{self.source}:{self.external_id}" + (
            "" if self.checked == "text" else f" ({self.checked})"
        )
        if self.reason == BY_RESTATEMENT:
            return f"{where} restates its session ({self.kind}: excluded under {self.threshold})"
        if self.reason == BY_PASTE:
            return (
                f"{where} holds a pasted passage of {self.kind}/{self.artifact} "
                f"({self.overlap:g} words, cut from {self.threshold:g})"
            )
        if self.passage_shared is not None:
            return (
                f"{where} holds a passage of {self.kind}/{self.artifact} "
                f"({self.passage_shared} shared shingles)"
            )
        return (
            f"{where} matches {self.kind}/{self.artifact} "
            f"({self.reason or 'overlap'} {self.overlap:.3f} > threshold {self.threshold})"
        )


@dataclass
class VerifyResult:
    checked: int = 0
    released_by_review: int = 0
    offenders: list[Offender] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.offenders


def derived_verify(
    *, batch_size: int = 1000, record_ids: list[int] | None = None, scope: str = "all"
) -> VerifyResult:
    """The card's `mem verify --derived-filter`, on everything that reaches evidence (the
    text of evidence records, the evidence text of redacted ones, restatements included): a
    fresh decision (filter.decide) with today's artifacts and policies must leave it as it
    is, evidence with nothing to cut; and a redaction's evidence text may hold no passage of
    min_shared shingles of the artifacts it was cut for (verify_redactions). Records a
    reviewer released (false positive) are counted apart; every other one is an offender.
    `record_ids`: only these records (what a command just touched), named by `scope` in the
    derived_verified event that records the result."""
    artifact_index = artifact_index_load()
    policies = artifact_index.policies
    result = VerifyResult()
    reaching = Record.objects.filter(
        status__in=[Record.Status.EVIDENCE, Record.Status.REDACTED]
    ).select_related("review")
    if record_ids is not None:
        reaching = reaching.filter(pk__in=record_ids)
    fields = ("pk", "source", "external_id", "status", "text", "evidence_text", "metadata")
    for page in keyset_pages(reaching.only(*fields, "review"), batch_size):
        texts = [record.evidence for record in page]
        checked = check_texts(artifact_index.filter, texts)
        for record, text, verdict in zip(page, texts, checked, strict=True):
            result.checked += 1
            decision = decide(checked_facts(text, record.metadata, verdict), policies)
            if decision.status == Record.Status.EVIDENCE:
                continue
            if record.review and record.review.verdict == Review.Verdict.FALSE_POSITIVE:
                result.released_by_review += 1
                continue
            match = decision.match
            result.offenders.append(
                Offender(
                    record_id=record.pk,
                    source=record.source,
                    external_id=record.external_id,
                    artifact=match.artifact[1] if match is not None else "",
                    kind=decision.kind or "",
                    overlap=decision.value,
                    threshold=decision.threshold,
                    checked=_checked_name(record),
                    reason=decision.reason,
                )
            )
        result.offenders.extend(verify_redactions(page, artifact_index))
    Event.objects.log(
        Event.Type.DERIVED_VERIFIED,
        data={
            "ok": result.ok,
            "checked": result.checked,
            "offenders": len(result.offenders),
            "released_by_review": result.released_by_review,
            "scope": scope,
        },
    )
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
