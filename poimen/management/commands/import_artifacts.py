from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from poimen.ledger.manifest import ManifestUnwritable
from poimen.services import InputError, artifacts_import


class Command(BaseCommand):
    help = (
        "Register artifacts from a JSONL manifest (the format of docs/card.md; lines without "
        "text still match), from a folder of .md/.txt files (a folder of skills, NAME/SKILL.md "
        "with its supporting files, is read as such; elsewhere the kind is the folder's name), or "
        "with --project from what an agent working in the folder loads (CLAUDE.md and AGENTS.md as "
        "`memory`, .claude/skills as `skill`, .claude/agents as `agent`, .claude/commands as "
        "`command`). Licence and non-text files are skipped and counted. Idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="a manifest file or a folder of artifacts")
        parser.add_argument("--kind", help="kind for everything imported (default: see above)")
        parser.add_argument(
            "--project",
            action="store_true",
            help="PATH is a project: register what an agent working in it loads",
        )

    def handle(self, *args, path: Path, kind: str | None, project: bool, **options):
        try:
            result = artifacts_import(path=path, kind=kind, project=project)
        except (InputError, ManifestUnwritable) as error:
            raise CommandError(str(error), returncode=2) from None
        for problem in result.problems:
            self.stderr.write(problem)
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(result.kinds.items())) or "none"
        skipped = ", ".join(f"{k} {n}" for k, n in result.skipped.most_common())
        self.stdout.write(
            f"{result.registered} registered ({kinds}), {result.already} already known, "
            f"{result.appended} manifest lines appended, "
            f"skipped {sum(result.skipped.values())}{f' ({skipped})' if skipped else ''}, "
            f"{len(result.problems)} errors"
        )
        if result.problems:
            raise CommandError(f"{len(result.problems)} artifacts not imported", returncode=2)
