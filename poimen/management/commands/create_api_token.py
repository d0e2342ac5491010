from django.core.management.base import BaseCommand, CommandError

from poimen.services import InputError
from poimen.services.tokens import api_token_create


class Command(BaseCommand):
    help = (
        "Make an API token acting as USERNAME (its permissions decide what the token may do: "
        "poimen.check_records, poimen.register_artifact). The token is the last line of the "
        "output, shown this once; only its SHA-256 is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", required=True, help="a label: where the token is used")

    def handle(self, *args, username, name, **options):
        try:
            new = api_token_create(username=username, name=name)
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(
            f"token {new.token.prefix}… ({new.token.name}) for {username}; "
            "copy it now, it is not shown again:"
        )
        self.stdout.write(new.raw)
