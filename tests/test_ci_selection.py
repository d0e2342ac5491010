"""CI's SQLite pass runs the tests marked uses_db alone (.ci/run): tests/conftest.py must mark
every test that can reach the database, directly or through a fixture, and no other."""

import pytest


def test_a_test_asking_for_the_database_is_marked(db, request):
    assert request.node.get_closest_marker("uses_db")


def test_a_test_reaching_it_through_a_fixture_is_marked(make_record, request):
    assert request.node.get_closest_marker("uses_db")


@pytest.mark.django_db(transaction=True)
def test_a_test_with_the_django_db_mark_is_marked(request):
    assert request.node.get_closest_marker("uses_db")


def test_a_test_without_the_database_is_not_marked(request):
    assert request.node.get_closest_marker("uses_db") is None
