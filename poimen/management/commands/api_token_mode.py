from django.core.management.base import BaseCommand, CommandError

from poimen.services import InputError
from poimen.services.tokens import MODE_ENFORCE, MODE_SHADOW, api_token_mode


class Command(BaseCommand):
    help = (
        "Put an API token in shadow mode (its records are decided and recorded, the answer "
        "says what would have happened, and the client keeps every record) or back to "
        "enforcing. TOKEN is the token or its prefix."
    )

    def add_arguments(self, parser):
        parser.add_argument("token")
        parser.add_argument("mode", choices=[MODE_SHADOW, MODE_ENFORCE])

    def handle(self, *args, token, mode, **options):
        try:
            changed = api_token_mode(token=token, shadow=mode == MODE_SHADOW)
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(f"token {changed.prefix}… ({changed.name}): {mode}")
