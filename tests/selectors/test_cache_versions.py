"""The cache versions and the kind policies are read once a GET request (request_memo): a
write seen by the next request, never lost for good; outside requests and in a POST, read
every time."""

from poimen.decision.policies import Policies
from poimen.models import Event, KindPolicy
from poimen.selectors import data_version

# The receivers of request_started and request_finished (sending the signals would also close
# the test's database connection, as Django does between requests).
from poimen.web.request_memo import _request_began, _request_ended


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


def test_policies_are_read_once_a_get_request_and_again_under_a_lock(db):
    _request_began(None, environ={"REQUEST_METHOD": "GET"})
    assert Policies.load().thresholds == {}
    KindPolicy.objects.create(kind="skill", threshold=0.7, min_shared=8)
    assert Policies.load().thresholds == {}  # one GET, one read
    assert Policies.load(lock=True).thresholds == {"skill": 0.7}  # a lock reads them anew
    _request_ended(None)
    _request_began(None, environ={"REQUEST_METHOD": "GET"})
    assert Policies.load().thresholds == {"skill": 0.7}
    _request_ended(None)


def test_policies_in_a_post_and_no_request_are_read_every_time(db):
    assert Policies.load().thresholds == {}
    KindPolicy.objects.create(kind="skill", threshold=0.7, min_shared=8)
    assert Policies.load().thresholds == {"skill": 0.7}
    _request_began(None, environ={"REQUEST_METHOD": "POST"})
    Policies.load()
    KindPolicy.objects.filter(kind="skill").update(threshold=0.75)
    assert Policies.load().thresholds == {"skill": 0.75}
    _request_ended(None)
