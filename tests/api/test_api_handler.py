"""The served application (poimen.wsgi: what gunicorn runs) takes API requests past the desk's
middleware: no session, no CSRF, no login wall, the same answers and safety headers."""

import io
import json
import sys

import pytest
from django.core.signals import request_started
from django.db import close_old_connections
from django.test import RequestFactory

from poimen.api.check import check_at_once
from poimen.wsgi import application

pytestmark = pytest.mark.django_db


def _call(method, path, token=None, body=None, keep=True, chunked=False):
    """`application`'s answer: status, headers by lower-case name, content. With `keep`, the
    test's connection is not closed at the request's start (as Django's test client). With
    `chunked`, the body has no Content-Length (as a server passes a chunked one on)."""
    data = json.dumps(body).encode() if body is not None else b""
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "HTTP_HOST": "testserver",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(data),
        "wsgi.errors": sys.stderr,
        "CONTENT_LENGTH": str(len(data)),
        "CONTENT_TYPE": "application/json",
    }
    if chunked:
        del environ["CONTENT_LENGTH"]
        environ["HTTP_TRANSFER_ENCODING"] = "chunked"
    if token:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    answered = {}

    def start_response(status, headers, exc_info=None):
        answered["status"], answered["headers"] = int(status.split()[0]), headers

    if not keep:
        return _answered(environ, start_response, answered)
    # As Django's test client does: the test's transaction keeps its connection.
    request_started.disconnect(close_old_connections)
    try:
        return _answered(environ, start_response, answered)
    finally:
        request_started.connect(close_old_connections)


def _answered(environ, start_response, answered):
    response = application(environ, start_response)
    try:
        content = b"".join(response)
    finally:
        response.close()  # request_finished, as a WSGI server sends it
    names = {name.lower(): value for name, value in answered["headers"]}
    return answered["status"], names, content


def test_a_check_is_answered_without_the_desks_middleware(api_user, make_token):
    body = {"records": [{"id": 1, "text": "An ordinary note."}], "store": False}
    status, headers, content = _call("POST", "/api/v1/check", make_token(api_user), body)
    assert status == 200, content
    assert json.loads(content)["results"][0]["status"] == "evidence"
    assert "set-cookie" not in headers  # no session, no CSRF cookie
    assert "vary" not in headers or "Cookie" not in headers["vary"]
    # the headers the desk's answers carry too
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["content-length"] == str(len(content))


def test_the_apis_errors_are_still_json(db):
    status, headers, content = _call("POST", "/api/v1/check", None, {"records": []})
    assert status == 401 and headers["content-type"].startswith("application/json")
    status, _, content = _call("GET", "/api/v1/nowhere")
    assert status == 404 and "no endpoint" in json.loads(content)["detail"]


def test_the_desk_keeps_its_login_wall(db):
    status, headers, _ = _call("GET", "/")
    assert status == 302 and headers["location"].startswith("/login/")


@pytest.mark.django_db(transaction=True)
def test_a_connection_that_died_costs_no_answer(api_user, make_token):
    """The API's requests skip Django's health check of a kept connection (a round trip as
    long as the check's own query); a connection that died between two requests (the
    database restarted) is found by the failure, and the request answered on a new one."""
    from django.db import connection, connections

    if connection.vendor != "postgresql":
        pytest.skip("a server-side connection to end: PostgreSQL's")
    token = make_token(api_user)
    body = {"records": [{"id": 1, "text": "An ordinary note."}], "store": False}
    assert _call("POST", "/api/v1/check", token, body, keep=False)[0] == 200
    with connection.cursor() as cursor:  # kept (CONN_MAX_AGE) for the next request
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    default = connections["default"]
    ended = type(default)(default.settings_dict, alias="ender")
    with ended.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    ended.close()
    status, _, content = _call("POST", "/api/v1/check", token, body, keep=False)
    assert status == 200, content
    assert json.loads(content)["results"][0]["status"] == "evidence"


def _request(token="", body=None, content_type="application/json"):
    data = json.dumps(body if body is not None else {"records": [{"id": 1, "text": "A note."}]})
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token is not None else {}
    return RequestFactory().post("/api/v1/check", data, content_type=content_type, **headers)


def test_a_usual_check_is_answered_at_once_and_anything_else_the_whole_way(api_user, make_token):
    from django.contrib.auth.models import User

    token = make_token(api_user)
    assert check_at_once(_request(token)).status_code == 200
    too_many = {"records": [{"id": n, "text": "x"} for n in range(1001)]}
    unchecking = User.objects.create_user("reader")
    for declined in [
        _request(None),
        _request("poimen_not-a-token"),
        _request(make_token(unchecking)),  # no permission to check
        _request(token, {"records": [], "store": "no"}),
        _request(token, {"records": {}, "store": False}),
        _request(token, {"records": [], "other": 1}),
        _request(token, ["not", "an", "object"]),
        _request(token, too_many),
        _request(token, content_type="text/plain"),
    ]:
        assert check_at_once(declined) is None


def test_an_answer_at_once_is_the_whole_ways_to_the_byte(api_user, make_token):
    """A chunked body (no Content-Length) takes the whole way: the same answer, the same
    headers."""
    token = make_token(api_user)
    body = {
        "records": [
            {"id": 1, "text": "An ordinary note."},
            {"id": 2, "text": 3},
            {"id": "s", "text": "Another one.", "source": "mem0", "session": "a"},
        ],
        "store": False,
    }
    at_once = _call("POST", "/api/v1/check", token, body)
    whole_way = _call("POST", "/api/v1/check", token, body, chunked=True)
    assert at_once[0] == whole_way[0] == 200
    assert at_once[2] == whole_way[2]
    assert at_once[1] == whole_way[1]


@pytest.mark.parametrize(
    "raw_text",
    [b'"\\u0000 a NUL"', b'"a lone \\ud800 surrogate"', b'"a lone \xed\xa0\x80 surrogate"'],
)
def test_what_cannot_be_stored_is_refused_at_once_too(api_user, make_token, raw_text):
    """A usual request's items are not walked for NUL and lone surrogates again when the raw
    body cannot hold them; one that can is (escaped, or UTF-8 bytes json.loads lets through)."""
    body = b'{"records": [{"id": 1, "text": ' + raw_text + b'}, {"id": 2, "text": "Fine."}]}'
    request = RequestFactory().post(
        "/api/v1/check",
        body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {make_token(api_user)}",
    )
    refused, fine = json.loads(check_at_once(request).content)["results"]
    assert refused["error"] and "records[0]" in refused["error"]
    assert fine["status"] == "evidence"
