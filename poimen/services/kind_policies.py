"""A kind's policy for derived records (exclude them whole, or redact them): set, and applied
from stored data, like a threshold change."""

from collections import Counter
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from poimen.decision.policies import Policies
from poimen.decision.stored_decisions import records_touched_by
from poimen.models import Event, KindPolicy
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


def check_paste_words(value) -> int:
    """A kind's paste_words: a whole number of words from the floor the matcher reports
    pasted passages at (POIMEN_PASTE_FLOOR) up, or an InputError saying so."""
    floor = settings.POIMEN_PASTE_FLOOR
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or str(number) != str(value).strip() or number < floor:
        raise InputError(
            f"paste words is a whole number of words from {floor} up (POIMEN_PASTE_FLOOR: "
            f"shorter passages may be one quoted sentence), not {value!r}"
        )
    return number


def kind_policy_change(
    *,
    kind: str,
    reason: str,
    on_derived: str | None = None,
    paste_words: int | None = None,
    actor=None,
    dry_run: bool = False,
) -> PolicyResult:
    """Set what a derived record of `kind` gets (on_derived) and from how many words a
    copied passage is cut whatever the record's overlap (paste_words), and apply them from
    the stored matches and their spans (no text is checked again): every record the kind
    touches is decided again (filter.decide), each change an event, unless a reviewer's
    verdict holds it. Writes a policy_changed event. With `dry_run`, the same decisions are
    counted and nothing is written: the preview of this change."""
    check_known_kind(kind)
    if on_derived is None and paste_words is None:
        raise InputError("a policy change sets on_derived, paste_words or both")
    changes = {}
    if on_derived is not None:
        changes["on_derived"] = check_on_derived(on_derived)
    if paste_words is not None:
        changes["paste_words"] = check_paste_words(paste_words)
    if not dry_run and not (reason or "").strip():
        raise InputError("a policy change needs a reason")
    with transaction.atomic():
        policy, _ = KindPolicy.objects.select_for_update(of=("self",)).get_or_create(kind=kind)
        old = {name: getattr(policy, name) for name in changes}
        result = PolicyResult(kind=kind, old=_said(old), new=_said(changes))
        # KindPolicy's fields and Policies' per-kind values share these names
        policies = Policies.load().with_values(kind, **changes)
        said = {"kind": kind, "old": result.old, "new": result.new}
        counts = Counter()
        result.changed = records_redecide(
            list(records_touched_by(kind).order_by("pk").values_list("pk", flat=True)),
            policies=policies,
            cause="policy_changed",
            actor=actor,
            data={"policy": said, "reason": reason},
            counts=counts,
            write=not dry_run,
        )
        result.count(counts)
        if dry_run:
            transaction.set_rollback(True)  # the policy row made by get_or_create too
            return result
        for name, value in changes.items():
            setattr(policy, name, value)
        policy.save(update_fields=list(changes))
        Event.objects.log(
            Event.Type.POLICY_CHANGED,
            actor=actor,
            kind=kind,
            data={**said, "reason": reason, "moved": result.moved},
        )
    return result


def _said(values: dict) -> str:
    """A policy's values as an event and a result say them: "redact, paste 50 words"."""
    parts = []
    if "on_derived" in values:
        parts.append(values["on_derived"])
    if "paste_words" in values:
        parts.append(f"paste {values['paste_words']} words")
    return ", ".join(parts)
