import time

from django.core.management.base import BaseCommand, CommandError

from poimen.decision.artifact_index import ArtifactUnusable, stale_artifacts
from poimen.management.verifying import VERIFY_HINT
from poimen.services import InputError, records_ingest, records_ingest_queued

FILTER_OFF_WARNING = (
    "WARNING: the derived filter is OFF for this run (--no-derived-filter). Copies of emitted "
    "artifacts will be stored as evidence and can feed the memory its own output. Use this for "
    "debugging only: the run is marked unfiltered and a filter_disabled event is logged."
)


class Command(BaseCommand):
    help = (
        "Ingest records from files or folders, each format recognised by its content (records "
        "JSONL, chat lines, Claude Code sessions, Codex CLI rollouts, Aider histories, ChatGPT "
        "exports, JSON message documents, .md/.txt), checking each against every artifact. "
        "Records already ingested are skipped. Exit 0 when all input was read, 2 when some "
        "was not."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="files or folders to read")
        parser.add_argument("--source", help="source label of records that carry none")
        parser.add_argument(
            "--no-derived-filter",
            action="store_true",
            help="ingest without the filter (debugging only; loudly logged)",
        )
        parser.add_argument("--batch-size", type=int, help="records a transaction (default 1000)")
        parser.add_argument(
            "--verbose",
            action="store_true",
            help="list what was skipped, by file and line (the summary counts it by kind)",
        )
        parser.add_argument(
            "--workers",
            type=int,
            help=(
                "processes checking records while this one reads and writes "
                "(default POIMEN_INGEST_WORKERS: 1 with a second core, else 0)"
            ),
        )
        parser.add_argument(
            "--queue",
            action="store_true",
            help=(
                "send the batches to `celery -A poimen worker` processes on the broker "
                "CELERY_BROKER_URL names, wait for them and show progress"
            ),
        )

    def handle(
        self,
        *args,
        paths,
        source,
        no_derived_filter,
        batch_size,
        workers,
        verbose,
        queue,
        **options,
    ):
        if no_derived_filter:
            self.stderr.write(self.style.ERROR(FILTER_OFF_WARNING))
        if queue and workers is not None:
            raise CommandError("--workers is for a local run; with --queue, start more workers")
        progress = _Progress(self.stdout) if self.stdout.isatty() else None
        common = {
            "paths": paths,
            "source": source,
            "filtered": not no_derived_filter,
            "batch_size": batch_size,
            "on_problem": lambda problem: self.stderr.write(problem),
            "on_progress": progress,
            "on_skipped": self.stdout.write if verbose else None,
        }
        try:
            if queue:
                result = records_ingest_queued(on_waiting=self.stderr.write, **common)
            else:
                result = records_ingest(workers=workers, **common)
        except (InputError, ArtifactUnusable) as error:
            raise CommandError(str(error), returncode=2) from None
        if progress:
            progress.done()
        if not no_derived_filter and (stale := stale_artifacts()):
            self.stderr.write(self.style.WARNING(stale.warning()))
        excluded = ", ".join(f"{k} {n}" for k, n in sorted(result.excluded.items())) or "none"
        redacted = ", ".join(f"{k} {n}" for k, n in sorted(result.redacted.items())) or "none"
        skipped = ", ".join(f"{k} {n}" for k, n in result.skipped_by.most_common())
        state = "filtered" if result.run.filtered else "UNFILTERED"
        self.stdout.write(
            f"run {result.run.pk} ({state}): read {result.read}, new {result.new}, "
            f"already ingested {result.already}, "
            f"skipped {result.skipped}{f' ({skipped})' if skipped else ''}, "
            f"excluded {sum(result.excluded.values())} ({excluded}), "
            f"redacted {sum(result.redacted.values())} ({redacted}), errors {result.errors}"
        )
        if result.run.filtered:
            self.stdout.write(VERIFY_HINT)
        if result.errors:
            problems = "1 problem" if result.errors == 1 else f"{result.errors} problems"
            rest = "the rest was ingested" if result.read else "nothing could be read"
            raise CommandError(f"{problems} in the input (listed above); {rest}", returncode=2)


class _Progress:
    """A one-line counter redrawn in place; only ever used on a terminal."""

    def __init__(self, stdout):
        self.stdout = stdout
        self.started = time.monotonic()

    def __call__(self, result):
        rate = result.read / max(time.monotonic() - self.started, 1e-6)
        excluded = sum(result.excluded.values())
        redacted = sum(result.redacted.values())
        self.stdout.write(
            f"\r  read {result.read:,}  new {result.new:,}  excluded {excluded:,}  "
            f"redacted {redacted:,}  "
            f"errors {result.errors:,}  {rate:,.0f} records/s",
            ending="",
        )
        self.stdout.flush()

    def done(self):
        self.stdout.write("")
