"""A kind's threshold: the one check of a value, and its change, applied from the stored
matches (no re-shingling)."""

from collections import Counter
from dataclasses import dataclass

from django.db import transaction

from poimen.db.planning import without_jit
from poimen.decision.policies import Policies, report_floor
from poimen.decision.restatements import RESTATEMENT_KINDS
from poimen.decision.stored_decisions import records_a_threshold_moves
from poimen.models import Artifact, Event, KindPolicy, Match, ThresholdChange
from poimen.selectors.tuning import ThresholdPreview
from poimen.selectors.tuning import threshold_preview as tuning_preview
from poimen.services.common import InputError, check_kind
from poimen.services.redecide import DecisionCounts, records_redecide


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


def threshold_change(
    *, kind: str, value: float, reason: str, actor=None, dry_run: bool = False
) -> ThresholdResult:
    """Set `kind`'s threshold and apply it from the stored matches (no re-shingling): the
    records whose decision moves (records_a_threshold_moves) are decided again under the new
    value (filter.decide), each change an event, unless a reviewer's verdict holds them.
    Writes a ThresholdChange and a threshold_changed event. With `dry_run`, the same
    decisions are counted and nothing is written: the preview of this change."""
    check_known_kind(kind)
    value = threshold_check(value)
    if not dry_run and not (reason or "").strip():
        raise InputError("a threshold change needs a reason")
    with transaction.atomic():
        policy, _ = KindPolicy.objects.select_for_update(of=("self",)).get_or_create(kind=kind)
        old = policy.threshold
        result = ThresholdResult(kind=kind, old=old, new=value)
        policies = Policies.load().with_values(kind, thresholds=value)
        candidates = records_a_threshold_moves(kind, old, value)
        with without_jit():
            ids = sorted(candidates.values_list("pk", flat=True))
        counts = Counter()
        changed = records_redecide(
            ids,
            policies=policies,
            cause="threshold_changed",
            actor=actor,
            data={"threshold": {"kind": kind, "old": old, "new": value}, "reason": reason},
            counts=counts,
            write=not dry_run,
        )
        result.count(counts)
        result.changed = changed
        if dry_run:
            transaction.set_rollback(True)  # the policy row made by get_or_create too
            return result
        policy.threshold = value
        policy.save(update_fields=["threshold"])
        ThresholdChange.objects.create(kind=kind, old=old, new=value, reason=reason, actor=actor)
        Event.objects.log(
            Event.Type.THRESHOLD_CHANGED,
            actor=actor,
            kind=kind,
            data={"old": old, "new": value, "reason": reason, "moved": result.moved},
        )
        # Only the records whose decision moved were decided under the new value; the
        # others' matches keep the threshold their decision was made under.
        for start in range(0, len(changed), 1000):
            Match.objects.filter(
                artifact__kind=kind, record_id__in=changed[start : start + 1000]
            ).update(threshold=value)
    return result


def threshold_preview(kind: str, value: float) -> ThresholdPreview:
    """The tuning page's preview of `kind`'s threshold at `value`: the change's own dry run
    (the decisions applying it makes, nothing written), with stored matches either side."""
    dry_run = threshold_change(kind=kind, value=value, reason="", dry_run=True)
    return tuning_preview(kind, value, dry_run)
