from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from poimen.services import login_unlock


class Command(BaseCommand):
    help = (
        "Lift a login lockout (too many wrong passwords) for a user, from every address, and "
        "write a login_unlocked event."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")

    def handle(self, *args, username, **options):
        cleared = login_unlock(username=username)
        if cleared:
            # A name no account has can be locked out too (someone guessing "admin").
            self.stdout.write(f"{username}: unlocked ({cleared} failed-attempt record(s) cleared)")
        elif not get_user_model().objects.filter(username=username).exists():
            raise CommandError(
                f"no user {username!r}, and no lockout under that name: a typo?", returncode=2
            )
        else:
            self.stdout.write(f"{username}: was not locked out")
