"""Ingest runs, newest first."""

from datetime import datetime

from django.db.models import QuerySet

from poimen.models import Event, IngestRun


def run_list() -> QuerySet:
    return IngestRun.objects.order_by("-started_at", "-id")


def recent_runs(limit: int = 8) -> list[IngestRun]:
    return list(run_list()[:limit])


def runs_for_filter(limit: int = 200) -> list[IngestRun]:
    """The runs a list can be filtered by."""
    return list(run_list()[:limit])


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
