"""A batch's measures in arrays (filter/measure.py): each group's covered positions are what
filter.align.covered gives each group's intervals alone, in whatever order they come (in C
and in numpy: tests/filter/conftest.py runs both)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from filter.align import covered
from filter.measure import covered_by_group

intervals = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 300), st.integers(1, 40)), max_size=60
)


@settings(max_examples=300, deadline=None)
@given(intervals)
def test_covered_by_group_is_covered_of_each_group(rows):
    rows = [(group, start, start + length) for group, start, length in rows]
    group = np.array([r[0] for r in rows], dtype=np.int64)
    start = np.array([r[1] for r in rows], dtype=np.int64)
    end = np.array([r[2] for r in rows], dtype=np.int64)
    got = covered_by_group(group, start, end, 7)
    expected = [covered([(s, e) for g, s, e in rows if g == at]) for at in range(7)]
    assert got.tolist() == expected
    assert got.dtype == np.int64


def test_covered_by_group_refuses_a_group_out_of_range():
    import pytest

    from filter import speedups

    if speedups.compiled is None:
        pytest.skip("the compiled check")
    one = np.array([3], dtype=np.int64)
    with pytest.raises(ValueError, match="a group out of range"):
        covered_by_group(one, one, one + 1, 3)
    with pytest.raises(ValueError, match="different lengths"):
        covered_by_group(one, np.array([1, 2]), one, 4)
