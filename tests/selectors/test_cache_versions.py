"""The cache versions are read once a GET request (selectors.cache): a write seen by the next
request, never lost for good; outside requests and in a POST, read every time."""

from poimen.models import Event
from poimen.selectors import data_version

# The receivers of request_started and request_finished (sending the signals would also close
# the test's database connection, as Django does between requests).
from poimen.selectors.cache import _request_began, _request_ended


def _event() -> None:
    Event.objects.create(type=Event.Type.THRESHOLD_CHANGED, kind="skill", data={})


def test_a_get_request_reads_the_version_once_and_the_next_reads_it_again(db):
    _request_began(None, environ={"REQUEST_METHOD": "GET"})
    before = data_version()
    _event()
    assert data_version() == before  # one GET, one version
    _request_ended(None)
    _request_began(None, environ={"REQUEST_METHOD": "GET"})
    assert data_version() != before
    _request_ended(None)


def test_a_post_and_no_request_read_it_every_time(db):
    before = data_version()
    _event()
    assert data_version() != before
    _request_began(None, environ={"REQUEST_METHOD": "POST"})
    during = data_version()
    _event()
    assert data_version() != during
    _request_ended(None)
