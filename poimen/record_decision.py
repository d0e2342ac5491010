"""A candidate under the filter's verdict: the unsaved Record and Matches that ingest stores
and the API answers with, and what a derived_excluded event says of it. One decision for
both: the API stores exactly what ingest would, and answers exactly what it stores."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from poimen.artifact_index import ArtifactIndex
from poimen.checked import Checked, CheckedMatch
from poimen.derived_rule import across_kinds_in_force, stored_coverage, stored_mixed
from poimen.models import IngestRun, Match, Record
from poimen.policies import Policies, report_floor
from poimen.readers import Candidate, content_sha256
from poimen.redaction import redaction_apply
from poimen.restatements import restatement_excluded, restatement_kind


def restatement_excludes(record: Record, policies: Policies) -> bool:
    """Whether a restatement (a compact summary, ...) is excluded under its kind's policy."""
    kind = restatement_kind(record.metadata)
    return kind is not None and restatement_excluded(kind, policies)


def exclusion_snapshot(
    record: Record, checked: Checked, artifact_index: ArtifactIndex
) -> tuple[int, dict]:
    """The decisive artifact's id and the event data of a derived_excluded event (or of a
    derived_redacted one: with the cut spans)."""
    kind, match = checked.decided_kind, checked.decided_match
    threshold = artifact_index.policies.threshold_for(kind)
    across = {}
    if checked.decided_across_kinds:  # name the largest part, and every artifact that matched
        match = next((m for m in checked.matches if m.kind == kind), None)
        mixed = checked.mixed
        overlap, how, shared = mixed.coverage, "coverage across kinds", mixed.shared
        threshold, _ = across_kinds_in_force(artifact_index.policies, mixed.kinds)
        across = {"matched": matched_names(checked.matches), "kinds": list(mixed.kinds)}
    elif match is None:  # decided by the kind's coverage: name its best artifact
        match = next((m for m in checked.matches if m.kind == kind), None)
        overlap, how = checked.coverage[kind], "coverage"
        shared = match.shared if match else None
    else:
        overlap, how, shared = match.overlap, "overlap", match.shared
    artifact = match.artifact if match else None
    return artifact_index.artifact_ids[artifact] if artifact else None, {
        **record_snapshot(record),
        "artifact": (
            {"kind": kind, "name": artifact[1], "sha256": artifact[2]} if artifact else None
        ),
        "overlap": round(overlap, 6),
        "threshold": threshold,
        "decided_by": how,
        "shared": shared,
        **across,
        **_cut_snapshot(record),
    }


def across_kinds_snapshot(mixed: dict, policies: Policies) -> dict:
    """What an event of a decision taken again from stored data says of the record's coverage
    across kinds (nothing when it has none): the coverage, the threshold in force, the kinds."""
    if not mixed:
        return {}
    threshold, _ = across_kinds_in_force(policies, mixed["kinds"])
    return {
        "across_kinds": {
            "coverage": round(mixed["coverage"], 6),
            "threshold": threshold,
            "kinds": ", ".join(sorted(mixed["kinds"])),
        }
    }


def matched_names(matches: Iterable[CheckedMatch]) -> str:
    """What a record matched, as an event names it: "skill/a 0.62 + reference/b 0.58"."""
    return " + ".join(f"{m.kind}/{m.artifact[1]} {m.overlap:.2f}" for m in matches)


def _cut_snapshot(record: Record) -> dict:
    """What a derived_redacted event says of the cut (nothing for an exclusion)."""
    if not record.cut_spans:
        return {}
    return {
        "spans": record.cut_spans,
        "cut_characters": sum(end - start for start, end in record.cut_spans),
    }


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


def reported_matches(checked: Checked) -> list[CheckedMatch]:
    """The matches kept of a verdict: those from the reporting floor up, near misses included."""
    if not checked.matches:
        return []  # most records: no need to read the floor (a setting, slow to read)
    floor = report_floor()
    return [m for m in checked.matches if m.overlap >= floor]


def thresholds_in_force(policies: Policies, kinds: Iterable[str]) -> dict[str, float]:
    """What a run records as its thresholds: each kind's with a policy or an artifact."""
    return {kind: policies.threshold_for(kind) for kind in set(policies.thresholds) | set(kinds)}


def _filtered(target, checked: Checked, policies: Policies) -> list[CheckedMatch]:
    """Set the filter's decision on `target` (a Record, or a Decision); return the matches
    kept of it (from the reporting floor up)."""
    kept = reported_matches(checked)
    target.derived = checked.derived
    target.coverage = stored_coverage(checked.coverage, checked.matches)
    target.mixed_coverage = stored_mixed(checked.mixed)
    redaction_apply(target, kept, policies)
    return kept


def _status_decided(target, checked: Checked, policies: Policies) -> None:
    """A new record's status from the filter's decision (and its restatement policy)."""
    if checked.derived:
        target.status = target.filter_status
    elif restatement_excludes(target, policies):
        target.derived, target.status = True, Record.Status.EXCLUDED


def apply_checked(record: Record, checked: Checked, artifact_index: ArtifactIndex) -> list[Match]:
    """Set the filter's decision on `record`; return its unsaved matches (for the floor up)."""
    kept = _filtered(record, checked, artifact_index.policies)
    best = max(kept, key=lambda m: m.overlap, default=None)
    record.best_overlap = round(best.overlap, 6) if best else 0.0
    record.best_artifact_id = artifact_index.artifact_ids[best.artifact] if best else None
    return [
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
        )
        for m in kept
    ]


def record_decided(
    candidate: Candidate,
    checked: Checked | None,
    artifact_index: ArtifactIndex | None,
    *,
    run: IngestRun | None = None,
) -> tuple[Record, list[Match]]:
    """The record `candidate` becomes under the filter's verdict (None: unfiltered), unsaved,
    and its matches: what ingest stores (and candidate_decided answers without storing)."""
    record = _record_from(candidate, run)
    if checked is None:
        return record, []
    matches = apply_checked(record, checked, artifact_index)
    _status_decided(record, checked, artifact_index.policies)
    return record, matches


_DEFAULT_STATUS = Record._meta.get_field("status").default


@dataclass(slots=True)
class Decision:
    """What record_decided decides of a candidate, without the Record and its Matches (a
    third of a check's cost): what the API answers when it stores nothing."""

    source: str
    text: str
    metadata: dict
    status: str = _DEFAULT_STATUS
    derived: bool = False
    coverage: dict = field(default_factory=dict)
    mixed_coverage: dict = field(default_factory=dict)
    cut_spans: list = field(default_factory=list)
    evidence_text: str = ""

    filter_status = Record.filter_status


def candidate_decided(
    candidate: Candidate, checked: Checked, artifact_index: ArtifactIndex
) -> Decision:
    """record_decided's decision of `candidate` under the filter's verdict, as plain data."""
    decided = Decision(source=candidate.source, text=candidate.text, metadata=candidate.metadata)
    _filtered(decided, checked, artifact_index.policies)
    _status_decided(decided, checked, artifact_index.policies)
    return decided
