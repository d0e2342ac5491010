from django.core.management.base import BaseCommand, CommandError

from poimen.services import InputError
from poimen.services.tokens import API_PERMISSIONS, api_token_create

# --allow's words for the permissions a token's user may hold.
ALLOW = {permission.split("_")[0].split(".")[1]: permission for permission in API_PERMISSIONS}


class Command(BaseCommand):
    help = (
        "Make an API token acting as USERNAME (its permissions decide what the token may do: "
        "poimen.check_records, poimen.register_artifact; --allow gives them to the user). The "
        "token is the last line of the output, shown this once; only its SHA-256 is stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", required=True, help="a label: where the token is used")
        parser.add_argument(
            "--allow",
            action="append",
            choices=sorted(ALLOW),
            default=[],
            help="give the user what the token needs: check (poimen.check_records: check "
            "and store records) or register (poimen.register_artifact); repeatable",
        )
        parser.add_argument(
            "--shadow",
            action="store_true",
            help="shadow mode: decide and record, never withhold (api_token_mode changes it)",
        )

    def handle(self, *args, username, name, allow, shadow, **options):
        try:
            new = api_token_create(
                username=username,
                name=name,
                allow=tuple(ALLOW[word] for word in allow),
                shadow=shadow,
            )
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        held = sorted(new.token.permissions)
        if not held:
            self.stderr.write(
                f"warning: {username} holds neither {' nor '.join(API_PERMISSIONS)}: every "
                "request with this token but the health is refused (403) until it does "
                "(--allow check, --allow register)"
            )
        self.stdout.write(
            f"token {new.token.prefix}… ({new.token.name}{', shadow' if shadow else ''}) for "
            f"{username}, "
            f"may {', '.join(held) or 'do nothing yet'}; copy it now, it is not shown again:"
        )
        self.stdout.write(new.raw)
