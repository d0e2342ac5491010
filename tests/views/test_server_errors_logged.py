"""A server error leaves its traceback in the log with the request's id, which the answer
carries too (X-Request-ID): DEBUG off, a desk page and the API alike."""

import logging

import pytest

from poimen.web.request_ids import RequestIdFilter

pytestmark = pytest.mark.django_db


def test_a_desk_500_is_logged_with_its_request_id(client, reviewer, monkeypatch, caplog):
    from poimen.views import overview

    def broken(*args, **kwargs):
        raise RuntimeError("the overview broke")

    monkeypatch.setattr(overview, "render_page", broken)
    client.raise_request_exception = False
    client.force_login(reviewer)
    with caplog.at_level(logging.ERROR):
        caplog.handler.addFilter(RequestIdFilter())
        answer = client.get("/", HTTP_X_REQUEST_ID="req-42")
    assert answer.status_code == 500 and answer["X-Request-ID"] == "req-42"
    (logged,) = [r for r in caplog.records if r.name == "django.request"]
    assert logged.request_id == "req-42" and logged.exc_info[1].args == ("the overview broke",)


def test_every_answer_names_its_request(client):
    first, second = client.get("/login/"), client.get("/login/", HTTP_X_REQUEST_ID="bad id!")
    assert len(first["X-Request-ID"]) == 16 and first["X-Request-ID"] != second["X-Request-ID"]
