from django.core.management.base import BaseCommand

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
            self.stdout.write(f"{username}: unlocked ({cleared} failed-attempt record(s) cleared)")
        else:
            self.stdout.write(f"{username}: was not locked out")
