"""A kind's policy for derived records (exclude them whole, or redact them; from how many words
a copied passage is cut; how many shingles a match must share): set, and applied like a
threshold change, from stored data, except a min_shared change (below).

min_shared decides which matches the matcher reports at all, and so what a record's coverage
adds up: matches under the kind's min_shared were never stored (a lower value would count
them), and a stored coverage cannot be taken apart into the matches a higher value drops. So
a min_shared change checks again from their text, under the new value, the records the kind
touches and those sharing that many shingles with one of its artifacts, by the refilter's own
page (the same decision, matches and events).
"""

from collections import Counter
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from filter.align import MIN_ANCHORS
from poimen.decision.artifact_index import artifact_index_under
from poimen.decision.index_version import live_index
from poimen.decision.policies import POLICY_VALUES, Policies
from poimen.decision.stored_decisions import records_touched_by
from poimen.models import Artifact, Event, KindPolicy
from poimen.services.common import InputError
from poimen.services.redecide import records_redecide
from poimen.services.refilter import RefilterResult, refilter_records
from poimen.services.refilter_affected import records_affected
from poimen.services.thresholds import check_known_kind


@dataclass(kw_only=True)
class PolicyResult(RefilterResult):
    """What moved; `checked`: the records checked again from their text (a lower min_shared)."""

    kind: str
    old: str
    new: str


def check_on_derived(value: str) -> str:
    """exclude or redact (KindPolicy.OnDerived), or an InputError naming the choices."""
    if value not in KindPolicy.OnDerived.values:
        choices = " or ".join(KindPolicy.OnDerived.values)
        raise InputError(f"what a derived record gets is {choices}, not {value!r}")
    return value


def _whole_number_from(value, floor: int, *, said: str) -> int:
    """`value` as a whole number from `floor` up, or an InputError: "{said} ..., not {value!r}"."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or str(number) != str(value).strip() or number < floor:
        raise InputError(f"{said.format(floor=floor)}, not {value!r}")
    return number


def check_paste_words(value) -> int:
    """A kind's paste_words: a whole number of words from the floor the matcher reports
    pasted passages at (POIMEN_PASTE_FLOOR) up, or an InputError saying so."""
    return _whole_number_from(
        value,
        settings.POIMEN_PASTE_FLOOR,
        said="paste words is a whole number of words from {floor} up (POIMEN_PASTE_FLOOR: "
        "shorter passages may be one quoted sentence)",
    )


def check_min_shared(value) -> int:
    """A kind's min_shared: a whole number of shingles from MIN_ANCHORS up (fewer cannot
    anchor an alignment), or an InputError saying so."""
    return _whole_number_from(
        value,
        MIN_ANCHORS,
        said="min shared is a whole number of shingles from {floor} up (fewer cannot anchor "
        "a match)",
    )


_CHECKS = {
    "on_derived": check_on_derived,
    "paste_words": check_paste_words,
    "min_shared": check_min_shared,
}


def kind_policy_change(
    *,
    kind: str,
    reason: str,
    on_derived: str | None = None,
    paste_words: int | None = None,
    min_shared: int | None = None,
    actor=None,
    dry_run: bool = False,
) -> PolicyResult:
    """Set what a derived record of `kind` gets (on_derived), from how many words a copied
    passage is cut whatever the record's overlap (paste_words) and how many shingles a match
    must share (min_shared), and apply them: every record the kind touches is decided again
    (filter.decide) from its stored matches and spans, or, when min_shared changes, checked
    again from its text with every record that could now match; each change is an event,
    unless a reviewer's verdict holds the record. Writes a policy_changed event. With
    `dry_run`, the same decisions are taken and nothing is kept: the preview of this change."""
    check_known_kind(kind)
    asked = {"on_derived": on_derived, "paste_words": paste_words, "min_shared": min_shared}
    changes = {name: _CHECKS[name](value) for name, value in asked.items() if value is not None}
    if not changes:
        raise InputError("a policy change sets on_derived, paste_words, min_shared or more")
    if not dry_run and not (reason or "").strip():
        raise InputError("a policy change needs a reason")
    with transaction.atomic():
        policy, _ = KindPolicy.objects.select_for_update(of=("self",)).get_or_create(kind=kind)
        old = {name: getattr(policy, name) for name in changes}
        result = PolicyResult(kind=kind, old=_said(old), new=_said(changes))
        # KindPolicy's fields and Policies' per-kind values share these names
        before = Policies.load()
        policies = before.with_values(kind, **changes)
        said = {"kind": kind, "old": result.old, "new": result.new}
        data = {"policy": said, "reason": reason}
        if policies.min_shared_for(kind) != before.min_shared_for(kind):
            _recheck(kind, policies, result=result, actor=actor, data=data)
        else:
            counts = Counter()
            result.changed = records_redecide(
                list(records_touched_by(kind).order_by("pk").values_list("pk", flat=True)),
                policies=policies,
                cause="policy_changed",
                actor=actor,
                data=data,
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


def _recheck(kind: str, policies: Policies, *, result: PolicyResult, actor, data) -> None:
    """Check again from their text, under `policies`, the records the kind touches and those
    sharing its min_shared shingles with one of its artifacts. Written in the caller's
    transaction (a dry run rolls it back)."""
    artifact_index = artifact_index_under(live_index.current()[0], policies)
    artifacts = Artifact.objects.filter(kind=kind).only("kind", "shingles")
    ids = set(records_affected(list(artifacts), policies))
    ids.update(records_touched_by(kind).values_list("pk", flat=True))
    refilter_records(
        ids,
        artifact_index=artifact_index,
        result=result,
        actor=actor,
        cause="policy_changed",
        data=data,
    )


def _said(values: dict) -> str:
    """A policy's values as an event and a result say them: "redact, paste 50 words, 20
    shared shingles"."""
    said = {
        "on_derived": "{}",
        "paste_words": "paste {} words",
        "min_shared": "{} shared shingles",
    }
    return ", ".join(said[name].format(values[name]) for name in POLICY_VALUES if name in values)
