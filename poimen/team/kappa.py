"""Cohen's kappa: how far two raters agree beyond what chance would give them. Pure Python."""

from collections import Counter
from collections.abc import Iterable


def cohen_kappa(pairs: Iterable[tuple[str, str]]) -> float | None:
    """Kappa over (rater A's label, rater B's label) pairs, one per item both rated:
    (p_o - p_e) / (1 - p_e), with p_o the share of items they agree on and p_e the agreement
    expected from each rater's own label frequencies.

    1 is perfect agreement, 0 what chance gives, below 0 worse than chance. None when it is
    undefined: no pairs, or no variance (both raters gave one and the same label throughout,
    so chance alone explains their agreement: p_e = 1)."""
    pairs = list(pairs)
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(1 for a, b in pairs if a == b) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


# The normal quantile of a 95% interval.
Z = 1.96


def kappa_interval(pairs: Iterable[tuple[str, str]]) -> tuple[float, float] | None:
    """An approximate 95% interval for cohen_kappa over `pairs`: Wilson's score interval of
    the observed agreement p_o on n pairs, carried through kappa = (p_o - p_e) / (1 - p_e)
    with p_e held fixed, clipped to [-1, 1]. Never of zero width (a large-sample standard
    error is zero when every pair agrees, or none does), and wide on a handful of pairs,
    which is the point. None where kappa is undefined."""
    pairs = list(pairs)
    if cohen_kappa(pairs) is None:
        return None
    n = len(pairs)
    observed = sum(1 for a, b in pairs if a == b) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / (n * n)
    centre = (observed + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * (observed * (1 - observed) / n + Z * Z / (4 * n * n)) ** 0.5 / (1 + Z * Z / n)

    def kappa_of(agreement: float) -> float:
        return max(-1.0, min(1.0, (agreement - expected) / (1 - expected)))

    return kappa_of(centre - half), kappa_of(centre + half)
