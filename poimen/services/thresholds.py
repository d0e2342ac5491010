"""A kind's threshold: the one check of a value, and its change, applied from the stored
matches (no re-shingling)."""

from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Exists, OuterRef, Q

from poimen.derived_rule import derived_condition
from poimen.models import Artifact, Event, KindPolicy, Match, Record, ThresholdChange
from poimen.planning import without_jit
from poimen.policies import Policies, report_floor
from poimen.restatements import RESTATEMENT_KINDS
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
    # The derived rule's SQL over every record the kind touches, planned without JIT as the
    # threshold preview's table is (planning.without_jit: seconds of compiling at 10^6).
    with without_jit():
        derived_now = set(
            touched.filter(derived_condition(policies, kinds)).values_list("pk", flat=True)
        )
        # Decided again: every record derived before or now, as what exceeds moves the cut of
        # a redaction too, not only the derived flag.
        derived_before = set(touched.filter(derived=True).values_list("pk", flat=True))
    ids = sorted(derived_before | derived_now)
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
