"""A session's restatement of itself (the summary Claude Code's /compact or a Codex compaction
writes) is the session's own output, fed back to it: excluded, under a kind of its own.

The rule is the filter's own rule with the restatement as its match: a restatement overlaps
its session entirely (RESTATEMENT_OVERLAP), so it is excluded while that exceeds its kind's
threshold, which is every threshold but 1.0. `set_threshold compact-summary 1.0` keeps
restatements as evidence. Readers mark a restatement in metadata["restatement"].
"""

from django.db.models import Q

from poimen.readers import COMPACT_SUMMARY

RESTATEMENT_KINDS = (COMPACT_SUMMARY,)
RESTATEMENT_OVERLAP = 1.0


def restatement_kind(metadata: dict) -> str | None:
    kind = metadata.get("restatement") if isinstance(metadata, dict) else None
    return kind if kind in RESTATEMENT_KINDS else None


def restatement_excluded(kind: str, policies) -> bool:
    return RESTATEMENT_OVERLAP > policies.threshold_for(kind)


def restatement_condition(policies) -> Q:
    """The rule as a Q on Record, for the decisions made from stored data."""
    condition = Q(pk__in=[])
    for kind in RESTATEMENT_KINDS:
        if restatement_excluded(kind, policies):
            condition |= Q(metadata__restatement=kind)
    return condition


def restatement_decision(kind: str, policies) -> dict:
    """What a derived_excluded event says of how an excluded restatement was decided."""
    return {
        "artifact": None,
        "overlap": RESTATEMENT_OVERLAP,
        "threshold": policies.threshold_for(kind),
        "decided_by": "restatement",
        "shared": None,
    }
