"""bench.matcher's column without the rule across kinds takes out that rule and nothing else:
a paste of two kinds that only the rule decides is not derived without it, and a copy that a
match decides still is (an earlier way to take the rule out went dead unnoticed)."""

from bench.matcher import derived_without_across_kinds
from tests.filter.test_pasted_across_kinds import CELERY, filter_of, pasted, registered
from tests.texts import reference, skill


def test_a_paste_of_two_kinds_that_only_the_rule_decides_is_not_derived_without_it():
    derived_filter = filter_of(registered())
    records = [pasted(skill("git-commit-message"), reference(CELERY), seed) for seed in range(3)]

    for verdict in [*derived_filter.check_many(records), derived_filter.check(records[0])]:
        assert verdict.derived and verdict.decided_by is verdict.mixed
        assert not derived_without_across_kinds(verdict)


def test_a_copy_a_match_decides_is_derived_without_the_rule():
    derived_filter = filter_of(registered())

    verdict = derived_filter.check(reference(CELERY))

    assert verdict.derived and derived_without_across_kinds(verdict)
