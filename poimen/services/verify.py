"""verify_derived: the evidence checked from its text again, with today's artifacts and
thresholds (the card's `mem verify --derived-filter`)."""

from dataclasses import dataclass, field

from filter import match_passages
from poimen.artifact_index import artifact_index_load
from poimen.checked import summarise
from poimen.derived_rule import across_kinds_in_force
from poimen.keyset import keyset_pages
from poimen.models import Match, Record, Review


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
