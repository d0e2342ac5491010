"""Every model's admin pages load, with data in them; the event log has no add or delete."""

import pytest
from django.apps import apps
from django.urls import reverse

from poimen.models import Event, Record
from poimen.services import review_record


@pytest.fixture
def populated(make_artifact, make_record, admin_user):
    artifact = make_artifact(name="release-notes")
    record = make_record(
        text=artifact.text,
        best_artifact=artifact,
        best_overlap=1.0,
        derived=True,
        status="excluded",
    )
    review_record(record=record, verdict="confirmed", actor=admin_user)
    return record


@pytest.mark.parametrize(
    "model", [m._meta.model_name for m in apps.get_app_config("poimen").get_models()]
)
def test_changelist_and_change_page_load(admin_client, populated, model):
    assert admin_client.get(reverse(f"admin:poimen_{model}_changelist")).status_code == 200
    row = apps.get_model("poimen", model).objects.first()
    if row is not None:
        page = admin_client.get(reverse(f"admin:poimen_{model}_change", args=[row.pk]))
        assert page.status_code == 200


def test_the_event_log_offers_no_add_and_refuses_delete(admin_client, populated):
    assert admin_client.get(reverse("admin:poimen_event_add")).status_code == 403
    event = Event.objects.first()
    delete = reverse("admin:poimen_event_delete", args=[event.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert Event.objects.filter(pk=event.pk).exists()
    assert Record.objects.count() == 1
