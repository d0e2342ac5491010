"""Cohen's kappa (poimen/team/kappa.py) against cases worked by hand, and its edge cases."""

import pytest

from poimen.team.kappa import cohen_kappa


def test_a_hand_computed_case():
    # 50 items: both yes 20, A yes B no 5, A no B yes 10, both no 15.
    # p_o = 35/50 = 0.7; A says yes 25/50, B 30/50: p_e = 0.5*0.6 + 0.5*0.4 = 0.5;
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    pairs = [("y", "y")] * 20 + [("y", "n")] * 5 + [("n", "y")] * 10 + [("n", "n")] * 15
    assert cohen_kappa(pairs) == pytest.approx(0.4)


def test_three_labels_by_hand():
    # 10 items over a, b, c, agreed on 6 (aa 2, bb 2, cc 2). A says a 4, b 3, c 3 times;
    # B a 3, b 5, c 2. p_o = 0.6; p_e = (4*3 + 3*5 + 3*2) / 100 = 0.33;
    # kappa = (0.6 - 0.33) / (1 - 0.33) = 0.27 / 0.67 = 0.40299...
    pairs = [("a", "a")] * 2 + [("a", "b")] * 2 + [("b", "b")] * 2 + [("b", "a")]
    pairs += [("c", "c")] * 2 + [("c", "b")]
    assert cohen_kappa(pairs) == pytest.approx(0.27 / 0.67)


def test_perfect_agreement_is_one():
    assert cohen_kappa([("copy", "copy"), ("not", "not"), ("copy", "copy")]) == 1.0


def test_chance_level_agreement_is_zero():
    # Each rater says yes half the time, independently: they agree on half the items, which
    # is exactly what chance predicts.
    pairs = [("y", "y"), ("y", "n"), ("n", "y"), ("n", "n")]
    assert cohen_kappa(pairs) == pytest.approx(0.0)


def test_systematic_disagreement_is_below_zero():
    assert cohen_kappa([("y", "n"), ("n", "y")]) == pytest.approx(-1.0)


def test_no_variance_is_undefined():
    # Both raters gave one and the same label throughout: p_e = 1, kappa is 0/0.
    assert cohen_kappa([("copy", "copy")] * 5) is None


def test_one_rater_without_variance_is_defined():
    # A always says copy, B varies: p_e = 0.5, p_o = 0.5, kappa 0.
    assert cohen_kappa([("copy", "copy"), ("copy", "not")]) == pytest.approx(0.0)


def test_no_pairs_is_undefined():
    assert cohen_kappa([]) is None


def test_the_interval_holds_kappa_narrows_with_records_and_is_never_a_point():
    from poimen.team.kappa import cohen_kappa, kappa_interval

    # 10 items: p_o 0.7, p_e 0.5, kappa 0.4.
    pairs = [("y", "y")] * 4 + [("n", "n")] * 3 + [("y", "n")] * 2 + [("n", "y")] * 1
    low, high = kappa_interval(pairs)
    assert low < cohen_kappa(pairs) < high
    # Wilson's interval of p_o = 0.7 on 10 is 0.3968-0.8922: kappa (x - 0.5) / 0.5.
    assert low == pytest.approx(2 * 0.39677 - 1, abs=1e-3)
    assert high == pytest.approx(2 * 0.89224 - 1, abs=1e-3)
    low_many, high_many = kappa_interval(pairs * 10)
    assert high_many - low_many < (high - low) / 2.5
    # Every pair agrees (or none does): still an interval, not a point.
    agreeing = [("y", "y"), ("n", "n")] * 2
    low, high = kappa_interval(agreeing)
    assert high == 1.0 and low < 0.5
    assert kappa_interval([("y", "y")] * 5) is None  # kappa undefined
