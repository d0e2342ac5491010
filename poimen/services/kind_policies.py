"""A kind's policy for derived records (exclude them whole, or redact them): set, and applied
from stored data, like a threshold change."""

from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Exists, OuterRef, Q

from poimen.models import Event, KindPolicy, Match, Record
from poimen.policies import Policies
from poimen.services.common import InputError
from poimen.services.redecide import DecisionCounts, records_redecide
from poimen.services.thresholds import check_known_kind


@dataclass(kw_only=True)
class PolicyResult(DecisionCounts):
    kind: str
    old: str
    new: str


def check_on_derived(value: str) -> str:
    """exclude or redact (KindPolicy.OnDerived), or an InputError naming the choices."""
    if value not in KindPolicy.OnDerived.values:
        choices = " or ".join(KindPolicy.OnDerived.values)
        raise InputError(f"what a derived record gets is {choices}, not {value!r}")
    return value


def kind_policy_change(*, kind: str, on_derived: str, reason: str, actor=None) -> PolicyResult:
    """Set what a derived record of `kind` gets and apply it from the stored matches and their
    spans (no text is checked again): its derived records are redacted or excluded again, each
    change an event, unless a reviewer's verdict holds them. Writes a policy_changed event."""
    check_known_kind(kind)
    check_on_derived(on_derived)
    if not (reason or "").strip():
        raise InputError("a policy change needs a reason")
    with transaction.atomic():
        policy, _ = KindPolicy.objects.select_for_update(of=("self",)).get_or_create(kind=kind)
        old = policy.on_derived
        policy.on_derived = on_derived
        policy.save(update_fields=["on_derived"])
        Event.objects.log(
            Event.Type.POLICY_CHANGED,
            actor=actor,
            kind=kind,
            data={"kind": kind, "old": old, "new": on_derived, "reason": reason},
        )
        result = PolicyResult(kind=kind, old=old, new=on_derived)
        derived = Record.objects.filter(derived=True).filter(
            Q(Exists(Match.objects.filter(record=OuterRef("pk"), artifact__kind=kind)))
            | Q(coverage__has_key=kind)
            | Q(mixed_coverage__kinds__has_key=kind)
        )
        counts = Counter()
        records_redecide(
            list(derived.order_by("pk").values_list("pk", flat=True)),
            derived=None,
            policies=Policies.load(),
            cause="policy_changed",
            actor=actor,
            data={"policy": {"kind": kind, "old": old, "new": on_derived}, "reason": reason},
            counts=counts,
        )
        result.count(counts)
    return result
