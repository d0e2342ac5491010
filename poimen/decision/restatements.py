"""A session's restatement of itself (the summary Claude Code's /compact or a Codex compaction
writes, and a compaction sub-agent's answer) is the session's own output, fed back to it:
excluded, under a kind of its own.

The rule is filter.decide's: a restatement overlaps its session entirely (RESTATEMENT_OVERLAP),
so it is excluded while that exceeds its kind's threshold, which is every threshold but 1.0.
`set_threshold compact-summary 1.0` keeps restatements as evidence. Readers mark a restatement
in metadata["restatement"].
"""

from django.db.models import Q

from filter.decide import RESTATEMENT_OVERLAP
from poimen.readers import COMPACT_SUMMARY

RESTATEMENT_KINDS = (COMPACT_SUMMARY,)


def restatement_kind(metadata: dict) -> str | None:
    kind = metadata.get("restatement") if isinstance(metadata, dict) else None
    return kind if kind in RESTATEMENT_KINDS else None


def restatement_condition(policies) -> Q:
    """The rule as a Q on Record, for the SQL form of the rule (poimen.decision.derived_rule)."""
    condition = Q(pk__in=[])
    for kind in RESTATEMENT_KINDS:
        if RESTATEMENT_OVERLAP > policies.threshold_for(kind):
            condition |= Q(metadata__restatement=kind)
    return condition
