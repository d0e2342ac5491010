"""The derived rule and the library's defaults, defined once.

A record is derived from artifacts of a kind when
- one match with an artifact of the kind has an overlap over the kind's threshold and at least
  the kind's minimum of shared shingles (`match_exceeds`), or
- several artifacts of the kind together cover more of the record than the threshold, with at
  least the minimum of shared shingles between them (`coverage_exceeds`: a record stitched
  from two skills), or
- artifacts of several kinds together cover more of the record than the highest threshold of
  the kinds involved, with at least the highest of their minimums of shared shingles
  (`mixed_coverage_exceeds`: a record pasted from a skill and a reference page). The highest,
  because a kind's threshold says how much of it a record may hold and stay evidence: a record
  derived across kinds is then over every involved kind's threshold, so joining kinds never
  loosens any kind's rule, and a kind whose threshold is 1 (never derived) stays never derived.

The rule is written once, over comparison operators that are passed in: plain Python
operators judge floats (the matcher) and numpy arrays alike (the threshold preview), and the
Django app hands in operators that build SQL, so the three forms cannot drift apart.
"""

import operator
from dataclasses import dataclass
from functools import reduce
from typing import Any

import numpy as np

# A record must overlap an artifact by more than this to be derived.
DEFAULT_THRESHOLD = 0.8
# Shared shingles a match needs before it counts: about two dozen words, so a phrase or one
# quoted sentence is never "a copy".
DEFAULT_MIN_SHARED = 20
# Matches from this overlap up are reported (and stored by the app), near misses included.
DEFAULT_REPORT_FLOOR = 0.2
# A copied passage of this many words is a pasted paragraph, cut from a record of a kind that
# redacts even when the record as a whole is under the threshold (filter.decide). Fifty words
# are two or three sentences: longer than any sentence a discussion quotes (a long one runs to
# about forty words), shorter than most paragraphs.
DEFAULT_PASTE_WORDS = 50
# Of a pasted passage's shingles, more than this share are shared with the artifact: a
# paragraph pasted whole shares nearly all, one with a word in ten changed about half (each
# changed word breaks the k shingles that hold it). A passage that only lines up with an
# artifact's template (badge lines whose project name differs every few words) shares less.
PASTE_DENSITY = 0.5
# The shortest a kind's paste_words may be set to, and the passage length from which the
# matcher reports a match whatever its overlap (as DEFAULT_REPORT_FLOOR is for thresholds):
# under thirty words a passage may be one quoted sentence.
DEFAULT_PASTE_FLOOR = 30


@dataclass(frozen=True)
class Operators:
    """How the rule compares and combines: `greater(a, b)` is a > b, `at_least(a, b)` a >= b,
    `both(a, b)` a and b."""

    greater: Any
    at_least: Any
    both: Any


# Python's own operators: floats give bools, numpy arrays give boolean arrays (the operator
# module's, not lambdas: the matcher asks this of every match it measures).
PLAIN = Operators(greater=operator.gt, at_least=operator.ge, both=operator.and_)


def match_exceeds(overlap, shared, *, threshold, min_shared, ops: Operators = PLAIN):
    """One match decides: more than the threshold, and enough shared shingles to be no accident."""
    return ops.both(ops.greater(overlap, threshold), ops.at_least(shared, min_shared))


def coverage_exceeds(coverage, artifacts, shared, *, threshold, min_shared, ops: Operators = PLAIN):
    """Several artifacts of one kind decide together: more than one of them, covering more of
    the record than the threshold, with enough shared shingles between them."""
    return ops.both(
        ops.both(ops.greater(artifacts, 1), ops.greater(coverage, threshold)),
        ops.at_least(shared, min_shared),
    )


def mixed_coverage_exceeds(
    coverage, kinds, shared, *, threshold, min_shared, ops: Operators = PLAIN
):
    """Artifacts of several kinds decide together: more than one kind, the passages of all
    of them covering more of the record than `threshold`, with enough shared shingles between
    them. `threshold` and `min_shared` are those in force across kinds (`across_kinds`): the
    highest of the kinds involved. Where the kinds are not known in advance (SQL), the same
    rule is the conjunction of this at each involved kind's own threshold, as
    x > max(t) exactly when x > t for every t."""
    return ops.both(
        ops.both(ops.greater(kinds, 1), ops.greater(coverage, threshold)),
        ops.at_least(shared, min_shared),
    )


def across_kinds(*values):
    """The threshold (or minimum of shared shingles) in force across kinds: the highest of
    the involved kinds' own (numbers, or numpy arrays element by element)."""
    if not any(isinstance(value, np.ndarray) for value in values):
        return max(values)  # (numbers: numpy's maximum of two costs a microsecond)
    return reduce(np.maximum, values)


def across_kinds_in_force(policies, kinds) -> tuple[float, int]:
    """The threshold and the minimum of shared shingles in force across `kinds` under
    `policies` (anything with threshold_for(kind) and min_shared_for(kind))."""
    kinds = sorted(set(kinds))
    return (
        float(across_kinds(*(policies.threshold_for(kind) for kind in kinds))),
        int(across_kinds(*(policies.min_shared_for(kind) for kind in kinds))),
    )


def check_threshold(value: float, *, kind: str = "default") -> float:
    """A threshold as a float between 0 and 1, or ValueError saying which kind's it was."""
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"threshold for {kind!r} must be between 0 and 1, not {value}")
    return value
