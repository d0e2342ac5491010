"""Plain builders and texts that several test modules share. Test modules import from here (and
from tests.texts), never from one another; fixtures that need the database live in conftest.py."""

import json
import unicodedata
from pathlib import Path

from filter import ArtifactRecord

DEMO_DATA = Path(__file__).resolve().parent.parent / "poimen" / "demo_data"


def demo_skill(name: str) -> str:
    """The text of one of the bundled demo skills (real SKILL.md files)."""
    return (DEMO_DATA / "artifacts" / "skill" / name / "SKILL.md").read_text(encoding="utf-8")


# The steps of a skill quoted inside a longer note: a near miss (overlap about 0.6).
NEAR_MISS = (
    "For the 2.4 notes I followed the steps of the release-notes skill, more or less:\n\n"
    + demo_skill("release-notes").split("## Steps", 1)[1].split("## Example", 1)[0]
    + "\nTwo of them did not fit this release. There was no internal group worth dropping, "
    "because the build changed and people who build from source need to know, so it stayed. "
    "And reading the draft aloud took longer than writing it: the section on the cache path "
    "rename had to be rewritten twice before Lee could follow it without the pull request open."
)


def near_copy(text: str) -> str:
    """`text` with every tenth word changed: a skill's overlap is about 0.9."""
    words = text.split()
    return " ".join("changed" if i % 10 == 5 else w for i, w in enumerate(words))


def normalised(fragment: str) -> str:
    """A fragment of text as the normaliser folds it (NFKC, casefold, NFKC again)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", fragment).casefold())


def manifest_line(artifact: ArtifactRecord, **changes) -> str:
    """The artifact's manifest line with fields changed; a field changed to None is left out."""
    data = artifact.to_dict()
    data.update(changes)
    return json.dumps({key: value for key, value in data.items() if value is not None})


ROOT = Path(__file__).resolve().parent.parent


def manage(*args, env, **kwargs):
    """`manage.py ARGS` as a real subprocess (output piped), for tests of whole processes."""
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )


def wipe_ingested():
    """Forget every ingest (artifacts stay), as if the database were fresh."""
    from django.db import connection

    from poimen.models import AuditHead, Event, IngestRun, Match, Record

    if connection.vendor == "postgresql":
        # The event table refuses DELETE and TRUNCATE; a superuser starting over steps around
        # its triggers deliberately (docs/deploy.md), and steps back at once.
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no deferred FK checks pending
            cursor.execute("SET session_replication_role = replica")
            cursor.execute(
                "TRUNCATE poimen_event, poimen_audithead, poimen_match, poimen_review,"
                " poimen_record, poimen_queuedbatch, poimen_ingestrun CASCADE"  # and referrers
            )
            cursor.execute("SET session_replication_role = origin")
    else:
        Event.objects.all().delete()
        AuditHead.objects.all().delete()  # the chain starts again
        Match.objects.all().delete()
        Record.objects.all().delete()
        IngestRun.objects.all().delete()


def ingested_snapshot() -> dict:
    """What an ingest left in the database, comparable across runs (ids and times left out)."""
    import json

    from poimen.models import Event, Match, Record

    records = {
        (r.source, r.external_id): (
            r.text,
            r.status,
            r.derived,
            round(r.best_overlap, 6),
            r.best_artifact.name if r.best_artifact else None,
            r.position,
            r.session,
            r.role,
            r.identity,
        )
        for r in Record.objects.select_related("best_artifact")
    }
    matches = sorted(
        Match.objects.values_list("record__external_id", "artifact__name", "overlap", "shared")
    )
    exclusions = sorted(
        (e.record.external_id, e.artifact.name, json.dumps(e.data | {"run": None}, sort_keys=True))
        for e in Event.objects.filter(type=Event.Type.DERIVED_EXCLUDED).select_related(
            "record", "artifact"
        )
    )
    return {"records": records, "matches": matches, "exclusions": exclusions}


def clean_run_of(paths) -> dict:
    """The snapshot a run of `paths` leaves in a database holding no ingest."""
    from poimen.services import records_ingest

    wipe_ingested()
    records_ingest(paths=paths)
    return ingested_snapshot()


# The headers htmx sends when it swaps the page's <main>: a view answers with its fragment.
HTMX_MAIN = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "main"}
