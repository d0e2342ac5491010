"""records_check: the API's check of the records a memory system is about to store.

Each item is read as a line of records JSONL is (the same reader, so the same rules), checked
against the index in force, and, with `store`, stored by candidates_ingest exactly as the
ingest command stores: once by its key, with its matches and events, decided under the
policies in force at the write (checked again when a change committed since the index was
read). The answer is of the index the stored decisions were made under: its version, its
thresholds, and the fresh check of the records stored before. Items that cannot be read are
answered with their problem; the others are answered all the same.
"""

from collections import Counter
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from poimen.decision.artifact_index import ArtifactIndex
from poimen.decision.checked import Checked, check_texts
from poimen.decision.index_version import live_index
from poimen.decision.record_decision import CandidateDecision, candidate_decided
from poimen.models import ApiToken, Event, IngestRun, Record
from poimen.readers import Candidate, Problem
from poimen.readers.base import FileContext, oversize, unstorable
from poimen.readers.records import records_line
from poimen.services.ingest import (
    IngestResult,
    candidates_ingest,
    thresholds_in_force,
)
from poimen.services.sources import shadow_sources

API_SOURCE = "api"


@dataclass
class CheckedItem:
    """One item's answer: its decision (the Record stored now, or the CandidateDecision of a
    record not stored) or why it was refused."""

    id: object
    decided: Record | CandidateDecision | None = None
    checked: Checked | None = None
    stored: str | None = None  # "new", "already", or None when nothing was stored
    error: str | None = None
    # Decided in shadow mode (its token's or its source's): recorded, not to be withheld.
    shadow: bool = False


@dataclass
class CheckResult:
    items: list[CheckedItem]
    index_version: str
    artifact_index: ArtifactIndex
    run: IngestRun | None = None
    # The run of the records stored in shadow mode, when some were and others not.
    shadow_run: IngestRun | None = None
    # The token is in shadow mode: decided and recorded, nothing withheld.
    shadow: bool = False


def _candidate(item, position: int, context: FileContext, limit: int) -> Candidate | str:
    """The item as a candidate record, or the problem with it ("records[3]: why")."""
    where = f"records[{position}]"
    if not isinstance(item, dict):
        return f"{where}: not a JSON object but {type(item).__name__}"
    read = next(iter(records_line(item, context)))
    if isinstance(read, Problem):
        return f"{where}: {read.why}"
    why = oversize(read.text, limit) or unstorable(read, suspect=context.suspect)
    if why:
        return f"{where}: {why}"
    return read


def records_check(
    *, items: list, store: bool = True, token: ApiToken, suspect: bool = True
) -> CheckResult:
    """Answer every item in order; with `store`, store the new ones as ingest would.
    `suspect` False: the raw request holds nothing that can make what `unstorable` refuses
    (its characters are then not walked again, as ingest skips them for such a line)."""
    answers, candidates = [], []
    # One context for every item: an item's problem is named by its place (records[3]), and
    # `unstorable` checks each item whatever the reader saw of it.
    context = FileContext(shown="records", resolved="", default_source=API_SOURCE, suspect=suspect)
    limit = settings.POIMEN_MAX_RECORD_BYTES
    for position, item in enumerate(items):
        read = _candidate(item, position, context, limit)
        item_id = item.get("id") if isinstance(item, dict) else None
        if isinstance(item_id, bool) or not isinstance(item_id, str | int):
            item_id = None  # answered by its place in the list alone
        if isinstance(read, str):
            answers.append(CheckedItem(id=item_id, error=read))
        else:
            answers.append(CheckedItem(id=item_id))
            candidates.append((answers[-1], read))
    in_shadow = shadow_sources() if candidates and not token.shadow else frozenset()
    for answer, candidate in candidates:
        answer.shadow = token.shadow or candidate.source in in_shadow
    artifact_index, state = live_index.current_state()
    runs, written = {}, {}
    # Shadow decisions are stored in a run of their own, which the desk shows apart.
    for shadow in (False, True):
        group = [(a, c) for a, c in candidates if a.shadow == shadow]
        if not (store and group):
            continue
        runs[shadow], batch = _store(group, artifact_index, token, shadow=shadow)
        written |= {(r.source, r.external_id): (r, c) for r, c in batch.records}
        if batch.artifact_index is not artifact_index:
            # A policy changed between the check and the write: the records were checked again
            # and stored under the policies in force then, and the answer is of that index.
            artifact_index = batch.artifact_index
            state = state.under(artifact_index.policies)
    result = CheckResult(
        items=answers,
        index_version=state.version,
        artifact_index=artifact_index,
        run=runs.get(False, runs.get(True)),
        shadow_run=runs.get(True) if len(runs) == 2 else None,
        shadow=token.shadow,
    )
    unstored = []
    for answer, candidate in candidates:
        key = (candidate.source, candidate.external_id)
        if key in written:
            answer.decided, answer.checked = written.pop(key)
            answer.stored = "new"
        else:
            answer.stored = "already" if store else None
            unstored.append((answer, candidate))
    checked = check_texts(artifact_index.filter, [c.text for _, c in unstored])
    for (answer, candidate), verdict in zip(unstored, checked, strict=True):
        answer.decided = candidate_decided(candidate, verdict, artifact_index)
        answer.checked = verdict
    return result


def _store(candidates, artifact_index: ArtifactIndex, token: ApiToken, *, shadow: bool):
    """Store through candidates_ingest (as one batch), in this token's run of the day (its
    shadow run, for records decided in shadow mode)."""
    run = _run_of_the_day(token, artifact_index, shadow=shadow)
    counts = IngestResult(run=run, read=len(candidates))
    (written,) = candidates_ingest(
        [[c for _, c in candidates]],
        run=run,
        artifact_index=artifact_index,
        result=counts,
        actor=token.user,
    )
    with transaction.atomic():
        run = IngestRun.objects.select_for_update().get(pk=run.pk)
        run.counts = _added(run.counts, counts.as_counts())
        run.finished_at = timezone.now()
        run.save(update_fields=["counts", "finished_at"])
        if counts.new:
            Event.objects.log(
                Event.Type.RECORDS_STORED,
                actor=token.user,
                run=run,
                data={
                    "token": f"{token.name} ({token.prefix}…)",
                    "stored": counts.new,
                    "already": counts.already,
                    "excluded": sum(counts.excluded.values()),
                },
            )
    return run, written


def _run_of_the_day(token: ApiToken, artifact_index: ArtifactIndex, *, shadow: bool) -> IngestRun:
    """The run a token's records of today belong to: one a day, and a new one when the
    thresholds in force have changed, so that a run's thresholds are those its records met,
    and one apart for its records decided in shadow mode (by its mode or their source's: a
    shadow run's decisions were not applied)."""
    thresholds = thresholds_in_force(
        artifact_index.policies, {kind for kind, _, _ in artifact_index.artifact_ids}
    )
    source = f"api: {token.name} ({token.prefix}…)"[:255]
    midnight = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    latest = (
        IngestRun.objects.filter(source=source, shadow=shadow, started_at__gte=midnight)
        .order_by("-pk")
        .first()
    )
    if latest is not None and latest.thresholds == thresholds:
        return latest
    return IngestRun.objects.create(
        source=source, filtered=True, thresholds=thresholds, shadow=shadow
    )


def _added(counts: dict, more: dict) -> dict:
    """Two runs' counts (IngestResult.as_counts) added up."""
    total = dict(counts)
    for key, value in more.items():
        if isinstance(value, dict):
            total[key] = dict(sorted((Counter(total.get(key, {})) + Counter(value)).items()))
        else:
            total[key] = total.get(key, 0) + value
    return total
