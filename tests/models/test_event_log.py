"""The audit log is append-only: read-only in the admin, and on PostgreSQL in the database."""

import pytest
from django.contrib.admin.sites import site
from django.db import DatabaseError, connection, transaction
from django.test import RequestFactory

from poimen.models import (
    Artifact,
    Event,
    IngestRun,
    KindPolicy,
    Match,
    Record,
    Review,
    ThresholdChange,
)


@pytest.mark.django_db
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the trigger is PostgreSQL's (plpgsql)"
)
@pytest.mark.parametrize(
    "statement",
    ["UPDATE poimen_event SET kind = 'tampered'", "DELETE FROM poimen_event"],
)
def test_postgresql_refuses_to_update_or_delete_an_event(statement):
    Event.objects.create(type=Event.Type.FILTER_DISABLED, data={"paths": ["a.jsonl"]})
    with pytest.raises(DatabaseError, match="append-only"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert Event.objects.get().kind == ""


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger is PostgreSQL's")
def test_postgresql_refuses_an_orm_update_of_an_event():
    event = Event.objects.create(type=Event.Type.FILTER_DISABLED)
    event.kind = "tampered"
    with pytest.raises(DatabaseError), transaction.atomic():
        event.save()


def test_admin_offers_no_way_to_add_change_or_delete_events(admin_user):
    request = RequestFactory().get("/admin/poimen/event/")
    request.user = admin_user
    event_admin = site._registry[Event]
    assert not event_admin.has_add_permission(request)
    assert not event_admin.has_change_permission(request)
    assert not event_admin.has_delete_permission(request)
    assert event_admin.has_view_permission(request)


def test_every_model_is_in_the_admin():
    from django.apps import apps

    for model in apps.get_app_config("poimen").get_models():
        assert model in site._registry, model.__name__


@pytest.mark.parametrize(
    "model", [Artifact, KindPolicy, ThresholdChange, IngestRun, Record, Match, Review, Event]
)
def test_the_admin_shows_every_model_and_changes_none(model, admin_user):
    # A threshold or a status edited in the admin would bypass the service that applies it.
    request = RequestFactory().get("/admin/")
    request.user = admin_user
    model_admin = site._registry[model]
    assert model_admin.has_view_permission(request)
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request)
    assert not model_admin.has_delete_permission(request)
