"""Ingest runs, newest first, and how far a queued run's batches are."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Max, QuerySet, Sum

from poimen.models import Event, IngestRun, QueuedBatch, ShadowSource


def run_list() -> QuerySet:
    return IngestRun.objects.order_by("-started_at", "-id")


def recent_runs(limit: int = 8) -> list[IngestRun]:
    return list(run_list()[:limit])


def runs_for_filter(limit: int = 200) -> list[IngestRun]:
    """The runs a list can be filtered by, with what their choice says (id, source, filtered,
    shadow): not their counts and thresholds, JSON decoded on every list page for nothing."""
    return list(run_list().only("id", "source", "filtered", "shadow", "started_at")[:limit])


def shadow_source_list() -> list[ShadowSource]:
    """The sources in shadow mode now (their records go to the shadow runs)."""
    return list(ShadowSource.objects.order_by("source"))


def unfiltered_runs() -> list[IngestRun]:
    """Runs that bypassed the filter, newest first, each with `.refiltered`: the first refilter
    of every kind that started after the run had finished (its records then re-checked), or
    None while their records stand unchecked."""
    runs = list(run_list().filter(filtered=False)[:20])
    full_refilters = list(
        Event.objects.filter(type=Event.Type.RECORDS_REFILTERED, kind="").order_by("created_at")
    )
    for run in runs:
        run.refiltered = next(
            (e for e in full_refilters if run.finished_at and _started(e) >= run.finished_at),
            None,
        )
    return runs


def _started(refilter: Event) -> datetime:
    started = refilter.data.get("started_at")
    return datetime.fromisoformat(started) if started else refilter.created_at


@dataclass
class QueueProgress:
    """A queued run's batches: sent, written, failed, and per worker what it wrote and whether
    it is on a batch now."""

    sent: int = 0
    written: int = 0
    failed: int = 0
    records_written: int = 0
    workers: dict[str, dict] = field(default_factory=dict)  # name: {"written", "busy", "last"}


def with_queue_progress(runs: list[IngestRun]) -> list[IngestRun]:
    """Set `.queue` on each run: its QueueProgress when it went through the queue, else None."""
    progress: dict[int, QueueProgress] = {}
    rows = (
        QueuedBatch.objects.filter(run__in=runs)
        .values("run_id", "state", "worker")
        .annotate(batches=Count("id"), records=Sum("size"), last=Max("done_at"))
        .order_by("run_id", "worker")
    )
    for row in rows:
        queue = progress.setdefault(row["run_id"], QueueProgress())
        queue.sent += row["batches"]
        blank = {"written": 0, "busy": False, "last": None}
        worker = queue.workers.setdefault(row["worker"], blank) if row["worker"] else blank
        if row["state"] == QueuedBatch.State.WRITTEN:
            queue.written += row["batches"]
            queue.records_written += row["records"]
            worker["written"] += row["batches"]
            worker["last"] = row["last"]
        elif row["state"] == QueuedBatch.State.FAILED:
            queue.failed += row["batches"]
        elif row["worker"]:
            worker["busy"] = True
    for run in runs:
        run.queue = progress.get(run.pk)
    return runs
