"""Numbers shown with the precision that decides: an overlap is told from its threshold."""

from poimen.templatetags.desk import overlap_against, overlap_near


def test_a_near_miss_reads_under_its_threshold():
    assert overlap_against(0.797, 0.8) == "0.797 < 0.800"
    assert overlap_against(0.8, 0.8) == "0.800 = 0.800"
    assert overlap_against(0.93, 0.8) == "0.93 > 0.80"
    assert overlap_against(0.8000001, 0.8) == "0.800000 > 0.800000"


def test_a_tuning_sample_near_the_line_reads_apart():
    values = [0.951, 0.9504, 0.949, 0.95]
    assert [overlap_near(v, 0.95) for v in values] == ["0.951", "0.9504", "0.949", "0.950"]
    assert overlap_near(0.5, None) == "0.50"
