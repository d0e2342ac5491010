import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from poimen.services import artifacts_import, records_ingest, role_assign

DEMO_DATA = Path(__file__).resolve().parents[2] / "demo_data"
DEMO_USER = "reviewer"
# The demo's account may judge and tune, so every page of the desk can be seen.
DEMO_ROLE = "admin"


class Command(BaseCommand):
    help = (
        "The demo: migrate the database (an SQLite file unless DATABASE_URL says otherwise), "
        "register the bundled skills and reference pages, ingest the bundled transcripts, "
        "create a reviewer account (role admin) with a fresh password, and serve the review desk "
        "on 127.0.0.1:8000 with the development server."
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
        self.stdout.write(self.style.SUCCESS(f"log in as {DEMO_USER} / {password}"))
        if no_serve:
            return
        # No autoreloader: it would run this command again in a child and change the password.
        call_command("runserver", f"127.0.0.1:{port}", use_reloader=False)

    def _reviewer_with_new_password(self) -> str:
        user, _ = get_user_model().objects.get_or_create(username=DEMO_USER)
        password = secrets.token_urlsafe(12)
        user.set_password(password)
        user.save()
        role_assign(user=user, role=DEMO_ROLE)
        return password
