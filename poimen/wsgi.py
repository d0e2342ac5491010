import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")

# The desk's handler first: it sets Django up, which the API's handler needs.
desk = get_wsgi_application()

from poimen.api.handler import ApiHandler, ByPath  # noqa: E402 (after Django's setup)

application = ByPath(api=ApiHandler(), desk=desk)
