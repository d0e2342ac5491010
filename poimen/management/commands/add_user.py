from django.core.management.base import BaseCommand, CommandError

from poimen.services import InputError, user_add
from poimen.team.roles import ROLES


class Command(BaseCommand):
    help = (
        "Add a team member: "
        + "; ".join(f"{role.name} {role.does}" for role in ROLES.values())
        + ". Prints a one-time password, shown only here: hand it over; its owner replaces it on "
        "the desk's Password page (/password/)."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=list(ROLES))

    def handle(self, *args, username, role, **options):
        try:
            user, password = user_add(username=username, role=role)
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(f"{user.username}: {role} ({ROLES[role].does})")
        self.stdout.write(f"one-time password: {password}")
