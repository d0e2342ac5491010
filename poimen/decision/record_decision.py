"""A candidate under the filter's decision: the unsaved Record and Matches that ingest stores
and the API answers with, and what an event says of a decision. One decision for all
(filter.decide): the API stores exactly what ingest would, and answers exactly what it stores.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

from filter.decide import Decision, Facts, coverage_facts, decide, mixed_facts
from filter.decision import across_kinds_in_force
from poimen.decision.artifact_index import ArtifactIndex
from poimen.decision.checked import Checked
from poimen.decision.policies import Policies, report_floor
from poimen.decision.restatements import restatement_kind
from poimen.models import Event, IngestRun, Match, Record
from poimen.readers import Candidate, content_sha256

# The event a decision that excludes or redacts a record writes; any other status change
# (a release) is a status_changed event.
DECISION_EVENTS = {
    Record.Status.EXCLUDED: Event.Type.DERIVED_EXCLUDED,
    Record.Status.REDACTED: Event.Type.DERIVED_REDACTED,
}


def checked_facts(text: str, metadata: dict, checked: Checked) -> Facts:
    """What the decision reads of a freshly checked record: what stored_facts reads of it
    once stored (the same matches, coverage and remainder answer), so the two agree."""
    floor = report_floor()
    return Facts(
        text=text,
        matches=checked.matches,
        coverage=coverage_facts(checked.coverage, checked.matches, floor),
        mixed=mixed_facts(checked.mixed, floor),
        restatement=restatement_kind(metadata),
        remainder_copies=checked.remainder_copies,
    )


def record_snapshot(record: Record) -> dict:
    """Where an excluded record came from, as its derived_excluded event keeps it."""
    return {
        "source": record.source,
        "external_id": record.external_id,
        "source_path": record.source_path,
        "position": record.position,
        "session": record.session,
        "role": record.role,
    }


# Record's attributes in field order with their defaults: a model built from positional
# values skips the keyword path of Model.__init__, a third of ingest's own time per record.
_RECORD_ATTNAMES = [field.attname for field in Record._meta.concrete_fields]
_RECORD_DEFAULTS = {field.attname: field.get_default() for field in Record._meta.concrete_fields}


def _record_from(candidate: Candidate, run: IngestRun | None) -> Record:
    values = {
        **_RECORD_DEFAULTS,
        "run_id": run.pk if run else None,
        "source": candidate.source,
        "external_id": candidate.external_id,
        "identity": candidate.identity,
        "source_path": candidate.source_path[:1000],
        "position": candidate.position,
        "session": candidate.session[:255],
        "role": candidate.role[:50],
        "metadata": candidate.metadata,
        "text": candidate.text,
        "sha256": content_sha256(candidate.text),
        "coverage": {},  # a dict of its own, never the shared default
        "mixed_coverage": {},
        "cut_spans": [],
    }
    return Record(*[values[attname] for attname in _RECORD_ATTNAMES])


def thresholds_in_force(policies: Policies, kinds: Iterable[str]) -> dict[str, float]:
    """What a run records as its thresholds: each kind's with a policy or an artifact."""
    return {kind: policies.threshold_for(kind) for kind in set(policies.thresholds) | set(kinds)}


def decision_set(target, facts: Facts, decision: Decision) -> None:
    """Put `decision` (made of `facts`) on `target`, a Record or a CandidateDecision: what is
    stored of it. The status is the filter's; a reviewer's verdict is the caller's to apply."""
    target.derived = decision.derived
    target.coverage = facts.coverage
    target.mixed_coverage = facts.mixed
    target.remainder_copies = facts.remainder_copies
    target.cut_spans = [list(cut) for cut in decision.cuts]
    target.evidence_text = decision.evidence_text
    target.status = decision.status


def apply_checked(
    record: Record, checked: Checked, artifact_index: ArtifactIndex
) -> tuple[Decision, list[Match]]:
    """Decide `record` from a fresh check; return the decision and its unsaved matches."""
    facts = checked_facts(record.text, record.metadata, checked)
    decision = decide(facts, artifact_index.policies)
    decision_set(record, facts, decision)
    best = max(checked.matches, key=lambda m: m.overlap, default=None)
    record.best_overlap = round(best.overlap, 6) if best else 0.0
    record.best_artifact_id = artifact_index.artifact_ids[best.artifact] if best else None
    return decision, [
        Match(
            record=record,
            artifact_id=artifact_index.artifact_ids[m.artifact],
            overlap=m.overlap,
            artifact_containment=m.artifact_containment,
            record_containment=m.record_containment,
            shared=m.shared,
            threshold=m.threshold,
            spans=[list(span) for span in m.spans],
            artifact_ranges=[list(r) for r in m.artifact_ranges],
            passage_shared=list(m.passage_shared),
        )
        for m in checked.matches
    ]


def record_decided(
    candidate: Candidate,
    checked: Checked | None,
    artifact_index: ArtifactIndex | None,
    *,
    run: IngestRun | None = None,
) -> tuple[Record, Decision | None, list[Match]]:
    """The record `candidate` becomes under the filter's decision (None: unfiltered),
    unsaved, the decision and the record's matches: what ingest stores (and
    candidate_decided answers without storing)."""
    record = _record_from(candidate, run)
    if checked is None:
        return record, None, []
    decision, matches = apply_checked(record, checked, artifact_index)
    return record, decision, matches


_DEFAULT_STATUS = Record._meta.get_field("status").default


@dataclass(slots=True)
class CandidateDecision:
    """What record_decided decides of a candidate, without the Record and its Matches (a
    third of a check's cost): what the API answers when it stores nothing."""

    source: str
    text: str
    metadata: dict
    status: str = _DEFAULT_STATUS
    derived: bool = False
    coverage: dict = field(default_factory=dict)
    mixed_coverage: dict = field(default_factory=dict)
    remainder_copies: bool = False
    cut_spans: list = field(default_factory=list)
    evidence_text: str = ""


def candidate_decided(
    candidate: Candidate, checked: Checked, artifact_index: ArtifactIndex
) -> CandidateDecision:
    """record_decided's decision of `candidate`, as plain data."""
    decided = CandidateDecision(
        source=candidate.source, text=candidate.text, metadata=candidate.metadata
    )
    facts = checked_facts(candidate.text, candidate.metadata, checked)
    decision_set(decided, facts, decide(facts, artifact_index.policies))
    return decided


def matched_names(matches: Iterable) -> str:
    """What a record matched, as an event names it: "skill/a 0.62 + reference/b 0.58"."""
    return " + ".join(f"{m.artifact[0]}/{m.artifact[1]} {m.overlap:.2f}" for m in matches)


def decision_data(record: Record, decision: Decision | None, policies: Policies) -> dict:
    """What an event says of a record's decision, for every path that decides (ingest, the
    API, refilter, a threshold or policy change): where the record came from, what decided
    and against which threshold, its coverage across kinds (which a release is also
    measured against), and the cut of a redaction."""
    data = record_snapshot(record)
    mixed = record.mixed_coverage
    if mixed:
        threshold, _ = across_kinds_in_force(policies, mixed["kinds"])
        data["across_kinds"] = {
            "coverage": round(mixed["coverage"], 6),
            "threshold": threshold,
            "kinds": ", ".join(sorted(mixed["kinds"])),
        }
    if decision is not None and decision.reason is not None:
        match = decision.match
        data.update(
            artifact=(
                {"kind": match.artifact[0], "name": match.artifact[1], "sha256": match.artifact[2]}
                if match is not None
                else None
            ),
            overlap=round(decision.value, 6),
            threshold=decision.threshold,
            decided_by=decision.reason,
            shared=decision.shared,
        )
        if len(decision.decided) > 1:  # name every artifact that matched
            data["matched"] = matched_names(m for found in decision.decided.values() for m in found)
            data["kinds"] = sorted(decision.decided)
    if record.cut_spans:
        data["spans"] = record.cut_spans
        data["cut_characters"] = sum(end - start for start, end in record.cut_spans)
    return data


def decision_event(
    record: Record,
    decision: Decision | None,
    policies: Policies,
    *,
    artifact_id=None,
    data=None,
    **about,
) -> Event:
    """The one event a decision writes of a record (unsaved, for a batch): derived_excluded
    or derived_redacted when it excludes or redacts it, status_changed otherwise (a
    release). `about`: actor, run; `data`: what the path adds (the run, the cause, ...)."""
    kind = decision.kind if decision is not None and decision.kind else ""
    return Event.objects.log(
        DECISION_EVENTS.get(record.status, Event.Type.STATUS_CHANGED),
        record=record,
        artifact_id=artifact_id,
        kind=kind,
        data={**decision_data(record, decision, policies), **(data or {})},
        save=False,
        **about,
    )
