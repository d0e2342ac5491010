"""The Celery app: `celery -A poimen worker` on any machine that reaches the broker and the
database runs the batches that `ingest --queue` and `refilter --queue` send (poimen.tasks).

Its settings are the CELERY_* names of poimen.settings; CELERY_BROKER_URL comes from the
environment. Nothing imports this module unless the queue is used.
"""

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")

app = Celery("poimen", include=["poimen.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")


@worker_process_init.connect
def keep_database_connections(**_):
    """A worker process writes a batch every second or so: it keeps its database connection
    (checked before each use) rather than opening one a batch."""
    from django.db import connections

    for connection in connections.all():
        connection.settings_dict["CONN_MAX_AGE"] = None
        connection.settings_dict["CONN_HEALTH_CHECKS"] = True
