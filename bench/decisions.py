"""The one decision on real text, through the paths an operator takes (issue 20's acceptance):

    python -m bench.decisions                 # 2,000 records; --records N, --seed S

On a fresh SQLite database in a temporary folder: half the real-text corpus (bench.realtext)
registered, as skills and reference pages in turn (bench.corpus.artifact_kind); the workload's
records (15% planted copies in every shape, pastes from two artifacts, the rest excerpts of
documents nobody registered) ingested under the default policy (redact). Then, with
verify_derived after each step: a refilter with nothing changed (which must move nothing); a
threshold change of each kind 0.8 -> 0.9 and its undo; a policy change redact -> exclude and
its undo. Each change runs its dry run first, which must move exactly what applying moves, and
each undo must restore every status. It prints a line a step and writes the figures to
bench/results/decisions-<date>.json. Exit 1 when any of that does not hold.
"""

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench import realtext
from bench.corpus import PLANTINGS, artifact_kind

RESULTS = Path(__file__).resolve().parent / "results"


def _prepared(folder: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'decisions.sqlite3'}"
    os.environ["POIMEN_MANIFEST"] = str(folder / "artifacts.jsonl")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _statuses() -> dict[int, str]:
    from poimen.models import Record

    return dict(Record.objects.values_list("pk", "status"))


def _by_planting(work) -> dict[str, dict[str, int]]:
    """The statuses after ingest by how the workload made each record: a planted copy (by
    its planting) or an excerpt of a document nobody registered ("unrelated")."""
    from poimen.models import Record

    statuses = dict(Record.objects.values_list("external_id", "status"))
    table: dict[str, Counter] = {}
    for number, how in enumerate(work.planting):
        table.setdefault(how, Counter())[statuses[f"r{number}"]] += 1
    return {how: dict(sorted(counts.items())) for how, counts in sorted(table.items())}


def run(*, n_records: int, seed: int, say) -> dict:
    from poimen.services import (
        artifact_register,
        derived_verify,
        kind_policy_change,
        records_ingest,
        records_refilter,
        threshold_change,
    )

    documents = realtext.load(say=say)
    corpus_is = realtext.describe(documents, say=say)
    work = realtext.build_workload(
        documents, PLANTINGS, seed=seed, n_records=n_records, planted_share=0.15, paired=True
    )
    for number, (name, text) in enumerate(zip(work.artifact_names, work.artifacts, strict=True)):
        artifact_register(kind=artifact_kind(number), name=name[:255], text=text)
    folder = Path(os.environ["POIMEN_MANIFEST"]).parent
    records_file = folder / "records.jsonl"
    with open(records_file, "w", encoding="utf-8") as stream:
        for number, text in enumerate(work.records):
            stream.write(json.dumps({"id": f"r{number}", "text": text}) + "\n")

    figures = {"corpus": corpus_is, "records": n_records, "seed": seed, "steps": []}
    failures = []

    def step(name: str, started: float, moved=None) -> None:
        verified = derived_verify(scope=f"bench.decisions: {name}")
        counts = Counter(_statuses().values())
        row = {
            "step": name,
            "seconds": round(time.perf_counter() - started, 2),
            "statuses": dict(sorted(counts.items())),
            "moved": moved,
            "verify_offenders": len(verified.offenders),
        }
        figures["steps"].append(row)
        say(f"{name}: {row}")
        if verified.offenders:
            failures.append(f"{name}: verify_derived found {len(verified.offenders)} offenders")

    started = time.perf_counter()
    records_ingest(paths=[records_file], source="bench")
    step("ingest", started)
    after_ingest = _statuses()
    figures["by_planting"] = _by_planting(work)
    say(f"statuses by how each record was made: {figures['by_planting']}")

    started = time.perf_counter()
    refiltered = records_refilter()
    step("refilter, nothing changed", started, moved=refiltered.moved)
    if refiltered.moved or _statuses() != after_ingest:
        failures.append(f"a refilter with nothing changed moved {refiltered.moves_said()}")

    def change(name, apply, values):
        before = _statuses()
        for value in values:
            started = time.perf_counter()
            dry_run, applied = apply(value, True), apply(value, False)
            step(f"{name} {value}", started, moved=applied.moves_said())
            if (dry_run.moves, sorted(dry_run.changed)) != (applied.moves, sorted(applied.changed)):
                failures.append(f"{name} {value}: the dry run moved {dry_run.moves_said()}")
        if _statuses() != before:
            failures.append(f"{name}: the round trip {values} did not restore every status")

    for kind in ("skill", "reference"):
        change(
            f"{kind} threshold",
            lambda value, dry, kind=kind: threshold_change(
                kind=kind, value=value, reason="bench", dry_run=dry
            ),
            (0.9, 0.8, 0.5, 0.8),
        )
        change(
            f"{kind} policy",
            lambda value, dry, kind=kind: kind_policy_change(
                kind=kind, on_derived=value, reason="bench", dry_run=dry
            ),
            ("exclude", "redact"),
        )
    figures["failures"] = failures
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    say = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory() as folder:
        _prepared(Path(folder))
        figures = run(n_records=args.records, seed=args.seed, say=say)
    figures["date"] = datetime.date.today().isoformat()
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"decisions-{figures['date']}.json"
    path.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for failure in figures["failures"]:
        print(f"FAILED: {failure}")
    print(f"{len(figures['failures'])} failures; figures in {path}")
    return 1 if figures["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
