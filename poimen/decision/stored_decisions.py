"""Decisions taken again from stored data (filter.decide on what a record keeps): a threshold
change, a kind's policy change, their previews and dry runs. No text is checked again: the
stored matches with their passages, the coverage, and whether what a cut leaves still copies
an artifact are what a fresh check decided from, so the decision is the one it made.
"""

from collections import defaultdict
from collections.abc import Iterable
from typing import NamedTuple

from django.db.models import Exists, FloatField, OuterRef, Q, QuerySet
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from filter.decide import Decision, Facts, decide
from poimen.decision.policies import Policies
from poimen.decision.record_decision import decision_set
from poimen.decision.restatements import restatement_kind
from poimen.models import Match, Record


class StoredMatch(NamedTuple):
    """A stored match as a decision reads it (filter.decide.MatchFacts)."""

    artifact: tuple[str, str, str]  # kind, name, sha256
    artifact_id: int
    overlap: float
    shared: int
    spans: list
    passage_shared: list

    @property
    def kind(self) -> str:
        return self.artifact[0]


def stored_matches(record_ids: Iterable[int]) -> dict[int, list[StoredMatch]]:
    """Every stored match of the records, as a decision reads them, in one query."""
    found = defaultdict(list)
    rows = (
        Match.objects.filter(record_id__in=list(record_ids))
        .values_list(
            "record_id",
            "artifact__kind",
            "artifact__name",
            "artifact__sha256",
            "artifact_id",
            "overlap",
            "shared",
            "spans",
            "passage_shared",
        )
        .order_by("record_id", "-overlap", "id")
    )
    for record_id, kind, name, sha256, artifact_id, overlap, shared, spans, each in rows:
        found[record_id].append(
            StoredMatch((kind, name, sha256), artifact_id, overlap, shared, spans, each)
        )
    return found


def stored_facts(record: Record, matches: list[StoredMatch]) -> Facts:
    """What a decision reads of a stored record."""
    return Facts(
        text=record.text,
        matches=matches,
        coverage=record.coverage,
        mixed=record.mixed_coverage,
        restatement=restatement_kind(record.metadata),
        remainder_copies=record.remainder_copies,
    )


def decide_stored(records: list[Record], policies: Policies) -> dict[int, Decision]:
    """Each record decided again under `policies` from its stored data, the decision put on
    it (unsaved; its status the filter's: status_in_force applies a reviewer's verdict)."""
    matches = stored_matches(r.pk for r in records)
    decisions = {}
    for record in records:
        facts = stored_facts(record, matches.get(record.pk, []))
        decisions[record.pk] = decision = decide(facts, policies)
        decision_set(record, facts, decision)
    return decisions


def records_touched_by(kind: str) -> QuerySet[Record]:
    """The records a change of `kind`'s policy can decide differently: those with a match of
    the kind, a coverage by it (alone or across kinds), or that restate their session under
    it. The one definition, for threshold and policy changes and their previews."""
    return Record.objects.filter(
        Q(Exists(Match.objects.filter(record=OuterRef("pk"), artifact__kind=kind)))
        | Q(coverage__has_key=kind)
        | Q(mixed_coverage__kinds__has_key=kind)
        | Q(metadata__restatement=kind)
    )


# A value compared against a threshold moves a decision only between the old and new values;
# the band is widened by this much so that no comparison on the edge is missed.
_EDGE = 1e-9


def records_a_threshold_moves(kind: str, old: float, new: float) -> QuerySet[Record]:
    """Of the records `kind` touches, those whose decision can move when its threshold goes
    from `old` to `new`: a value the rule compares with it (a match's overlap, the kind's
    coverage, a coverage across kinds involving it) lies between the two, or a restatement
    of the kind. Every other record compares the same on both sides; decide() on these gives
    exactly what deciding all of them again would."""
    low, high = min(old, new) - _EDGE, max(old, new) + _EDGE
    in_band = Match.objects.filter(
        record=OuterRef("pk"), artifact__kind=kind, overlap__gt=low, overlap__lte=high
    )
    coverage = KT(f"coverage__{kind}__coverage")
    return (
        records_touched_by(kind)
        .alias(kind_coverage=Cast(coverage, FloatField()))
        .alias(across=Cast(KT("mixed_coverage__coverage"), FloatField()))
        .filter(
            Q(Exists(in_band))
            | Q(kind_coverage__gt=low, kind_coverage__lte=high)
            | Q(mixed_coverage__kinds__has_key=kind, across__gt=low)
            | Q(metadata__restatement=kind)
        )
    )
