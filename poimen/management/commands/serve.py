import os
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from django.http.request import validate_host

from poimen.allocator import CHECKING_ALLOCATOR
from poimen.db.readiness import database_problem
from poimen.services.artifacts import manifest_differences


class Command(BaseCommand):
    help = (
        "The production server: collect the static files (hashed names, compressed), then "
        "replace this process with gunicorn serving the desk, static files through WhiteNoise. "
        "Refuses the development SECRET_KEY unless DEBUG is on, and a database not migrated. "
        "Put it behind a reverse proxy (docs/deploy.md); gunicorn settings beyond these in "
        "GUNICORN_CMD_ARGS."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="port to bind (8000)")
        parser.add_argument(
            "--workers",
            type=int,
            default=settings.POIMEN_SERVER_WORKERS,
            help=f"worker processes ({settings.POIMEN_SERVER_WORKERS} here; POIMEN_SERVER_WORKERS)",
        )

    def handle(self, *args, host: str, port: int, workers: int, **options):
        if not settings.DEBUG and settings.SECRET_KEY == settings.DEVELOPMENT_SECRET_KEY:
            raise CommandError(
                "SECRET_KEY is the development key: set SECRET_KEY in the environment to a long "
                "random value, e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))'",
                returncode=2,
            )
        if workers < 1:
            raise CommandError(f"--workers is at least 1, not {workers}", returncode=2)
        problem = database_problem()
        if problem:
            raise CommandError(problem, returncode=2)
        differences = manifest_differences()
        for line in differences.described():
            self.stderr.write(f"warning: {line}")
        if differences:
            self.stderr.write("warning: the manifest and the database differ: run sync_manifest")
        call_command("collectstatic", interactive=False, verbosity=0)
        connections.close_all()  # gunicorn forks: no connection may be shared with its workers

        bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.stdout.write(
            f"serving {_url(host, port)} with {workers} gunicorn worker(s) of "
            f"{settings.POIMEN_SERVER_THREADS} threads"
        )
        self.stdout.flush()
        # gunicorn's processes hold them from their start (each worker's Django sets them too)
        for name, value in CHECKING_ALLOCATOR.items():
            os.environ.setdefault(name, value)
        os.execv(sys.executable, [sys.executable, *gunicorn_command(bind=bind, workers=workers)])


def gunicorn_command(*, bind: str, workers: int, app: str = "poimen.wsgi:application") -> list:
    """gunicorn's command line as `serve` runs it (bench/api.py runs a bare app under it)."""
    return [
        "-m",
        "gunicorn",
        app,
        f"--bind={bind}",
        f"--workers={workers}",
        # Threads, so that a few slow clients (a body trickling in) hold a thread each, not a
        # whole worker: with sync workers two slow connections starve --workers 2.
        "--worker-class=gthread",
        f"--threads={settings.POIMEN_SERVER_THREADS}",
        f"--timeout={settings.POIMEN_SERVER_TIMEOUT}",
        # The poimen this command runs, not whatever the working directory holds.
        f"--pythonpath={Path(__file__).resolve().parents[3]}",
        "--access-logfile=-",
        "--error-logfile=-",
        # Signals from systemd manage it; a control socket in $HOME would be shared by every
        # server of that user on the machine.
        "--no-control-socket",
    ]


def _url(host: str, port: int) -> str:
    """A URL the desk answers at: the bound address when ALLOWED_HOSTS takes it, else what to
    open instead (Django answers 400 to a host it does not allow)."""
    allowed = settings.ALLOWED_HOSTS
    shown = f"[{host}]" if ":" in host else host
    if host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    if validate_host(shown.strip("[]"), allowed) or validate_host(shown, allowed):
        return f"http://{shown}:{port}/"
    named = next((h for h in allowed if not h.startswith(".") and h != "*"), None)
    where = f"http://{named}/ (through the proxy)" if named else "a host it allows"
    return (
        f"on {shown}:{port}, which ALLOWED_HOSTS ({', '.join(allowed)}) does not take: "
        f"open {where}, or add {shown} to ALLOWED_HOSTS;"
    )
