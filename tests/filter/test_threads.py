"""Checks from several threads at once: the compiled loops release the GIL, so two threads
run them together, and every verdict is the one a single thread gives."""

import threading

from filter import ArtifactRecord, DerivedFilter
from tests import renderings
from tests.texts import SKILL_NAMES, skill, turn


def test_threads_checking_one_filter_at_once_get_the_verdicts_one_thread_gets():
    derived_filter = DerivedFilter()
    for name in SKILL_NAMES:
        derived_filter.add(ArtifactRecord.from_text(kind="skill", name=name, text=skill(name)))
    derived_filter.prepare()
    records = [renderings.quote(skill(n)) for n in SKILL_NAMES] + [turn("unrelated-asyncio")]
    records = records * 20
    expected = [
        (v.derived, [m.overlap for m in v.matches]) for v in derived_filter.check_many(records)
    ]
    results: dict[int, list] = {}

    def work(number: int) -> None:
        verdicts = []
        for start in range(0, len(records), 7):
            verdicts += derived_filter.check_many(records[start : start + 7])
        results[number] = [(v.derived, [m.overlap for m in v.matches]) for v in verdicts]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(results[n] == expected for n in range(4))
