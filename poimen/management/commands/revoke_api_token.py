from django.core.management.base import BaseCommand, CommandError

from poimen.services import InputError
from poimen.services.tokens import api_token_revoke


class Command(BaseCommand):
    help = "Revoke an API token, named by itself or by its prefix (as the admin lists it)."

    def add_arguments(self, parser):
        parser.add_argument("token", help="the token, or its prefix (poimen_XXXXXXXX)")

    def handle(self, *args, token, **options):
        try:
            revoked = api_token_revoke(token=token)
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(f"revoked {revoked.prefix}… ({revoked.name}) of {revoked.user}")
