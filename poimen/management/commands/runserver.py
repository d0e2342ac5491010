import os

from django.conf import settings
from django.contrib.staticfiles.management.commands.runserver import Command as StaticRunserver
from django.core.management import call_command


class Command(StaticRunserver):
    help = (
        "The development server (`serve` is the production one). With DEBUG off it first "
        "collects the static files, which WhiteNoise then serves as in production; with DEBUG=1 "
        "they come straight from the source folders, so an edit shows on reload."
    )

    def handle(self, *args, **options):
        # The autoreloader runs this command again in a child (RUN_MAIN): collect once.
        if not settings.DEBUG and os.environ.get("RUN_MAIN") != "true":
            call_command("collectstatic", interactive=False, verbosity=0)
        super().handle(*args, **options)
