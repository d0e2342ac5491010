from django.core.management.base import BaseCommand, CommandError

from poimen.models import ShadowSource
from poimen.services import InputError, source_mode
from poimen.services.tokens import MODE_ENFORCE, MODE_SHADOW


class Command(BaseCommand):
    help = (
        "Put a source (the `source` a memory system's records carry: mem0, langgraph, mcp, "
        "api...) in shadow mode, whatever token sends its records (they are decided and "
        "recorded, the answer says what would have happened, and the client keeps every "
        "record), or back to enforcing. With no argument, list the sources in shadow mode."
    )

    def add_arguments(self, parser):
        parser.add_argument("source", nargs="?")
        parser.add_argument("mode", nargs="?", choices=[MODE_SHADOW, MODE_ENFORCE])

    def handle(self, *args, source, mode, **options):
        if source is None:
            for row in ShadowSource.objects.all():
                self.stdout.write(f"{row.source}: {MODE_SHADOW} since {row.since:%Y-%m-%d %H:%M}")
            return
        if mode is None:
            raise CommandError(f"say the mode: {MODE_SHADOW} or {MODE_ENFORCE}", returncode=2)
        try:
            changed = source_mode(source=source, shadow=mode == MODE_SHADOW)
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(f"source {source.strip()}: {mode}{'' if changed else ' (already)'}")
