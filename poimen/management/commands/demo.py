import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.core.management.base import BaseCommand

from poimen.services import artifacts_import, records_ingest

DEMO_DATA = Path(__file__).resolve().parents[2] / "demo_data"
REVIEWER = "reviewer"
REVIEWER_PERMISSIONS = [
    "view_artifact",
    "view_record",
    "view_match",
    "view_event",
    "view_ingestrun",
    "view_kindpolicy",
    "view_thresholdchange",
    "view_review",
    "review_record",
]


class Command(BaseCommand):
    help = (
        "The demo: migrate the database (an SQLite file unless DATABASE_URL says otherwise), "
        "register the bundled skills and reference pages, ingest the bundled transcripts, "
        "create a reviewer account with a fresh password, and serve the review desk on "
        "127.0.0.1:8000."
    )

    def add_arguments(self, parser):
        parser.add_argument("--no-serve", action="store_true", help="set up, then exit")
        parser.add_argument("--port", default="8000", help="port to serve on (default 8000)")

    def handle(self, *args, no_serve: bool, port: str, **options):
        call_command("migrate", interactive=False, verbosity=0)
        database = settings.DATABASES["default"]
        self.stdout.write(f"database: {database['ENGINE'].rsplit('.', 1)[-1]} {database['NAME']}")

        imported = artifacts_import(path=DEMO_DATA / "artifacts")
        self.stdout.write(
            f"artifacts: {imported.registered} registered, {imported.already} already known "
            f"(manifest: {settings.POIMEN_MANIFEST})"
        )
        result = records_ingest(paths=[DEMO_DATA / "transcripts"])
        excluded = ", ".join(f"{k} {n}" for k, n in sorted(result.excluded.items())) or "none"
        redacted = ", ".join(f"{k} {n}" for k, n in sorted(result.redacted.items())) or "none"
        self.stdout.write(
            f"transcripts: read {result.read}, new {result.new}, already ingested "
            f"{result.already}, excluded {sum(result.excluded.values())} ({excluded}), "
            f"redacted {sum(result.redacted.values())} ({redacted})"
        )

        password = self._reviewer_with_new_password()
        self.stdout.write(self.style.SUCCESS(f"log in as {REVIEWER} / {password}"))
        if no_serve:
            return
        # No autoreloader: it would run this command again in a child and change the password.
        # Static files served even with DEBUG off: this is the local demo, not a deployment.
        call_command("runserver", f"127.0.0.1:{port}", use_reloader=False, insecure_serving=True)

    def _reviewer_with_new_password(self) -> str:
        group, _ = Group.objects.get_or_create(name="reviewers")
        group.permissions.set(
            Permission.objects.filter(
                content_type__app_label="poimen", codename__in=REVIEWER_PERMISSIONS
            )
        )
        user, _ = get_user_model().objects.get_or_create(username=REVIEWER)
        password = secrets.token_urlsafe(12)
        user.set_password(password)
        user.save()
        user.groups.add(group)
        # The demo's reviewer may also tune thresholds, so every page of the desk can be seen.
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label="poimen", codename="tune_threshold")
        )
        return password
