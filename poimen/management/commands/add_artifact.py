from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from poimen.decision.policies import Policies
from poimen.ledger.manifest import ManifestUnwritable
from poimen.services import InputError, artifact_name_from_text, artifact_register


class Command(BaseCommand):
    help = (
        "Register one emitted artifact (a skill, a reference page) and append its line to the "
        "manifest, exactly once however often it is run."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="the artifact's text (UTF-8)")
        parser.add_argument("--kind", default="skill", help="artifact kind (default: skill)")
        parser.add_argument(
            "--name", help="artifact name (default: the front matter's name:, else the file stem)"
        )

    def handle(self, *args, file: Path, kind: str, name: str | None, **options):
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CommandError(f"{file}: no such file", returncode=2) from None
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(
                f"{file}: cannot read as UTF-8 text: {error}", returncode=2
            ) from None
        name = name or artifact_name_from_text(text, fallback=file.stem)
        try:
            result = artifact_register(kind=kind, name=name, text=text)
        except (InputError, ManifestUnwritable) as error:
            raise CommandError(str(error), returncode=2) from None
        artifact = result.artifact
        state = "registered" if result.created else "already registered"
        line = "manifest line appended" if result.appended else "manifest already holds it"
        self.stdout.write(
            f"{artifact.kind}/{artifact.name} {artifact.sha256[:12]}: {state}; {line}"
        )
        shingles = len(artifact.shingle_array)
        min_shared = Policies.load().min_shared_for(artifact.kind)
        if shingles < min_shared:
            self.stderr.write(
                f"warning: {artifact.kind}/{artifact.name} has {shingles} shingles, fewer than "
                f"the {min_shared} a match of its kind needs: no record can ever match it"
            )
