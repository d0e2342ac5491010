"""The Celery app: `celery -A poimen worker` on any machine that reaches the broker and the
database runs the batches that `ingest --queue` and `refilter --queue` send (poimen.tasks).

Its settings are the CELERY_* names of poimen.settings; CELERY_BROKER_URL comes from the
environment. Nothing imports this module unless the queue is used.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")

app = Celery("poimen", include=["poimen.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")
