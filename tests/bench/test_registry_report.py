"""The registry bench's report judges flatness by the ratio measured in the same rounds."""

from types import SimpleNamespace

from bench.matcher import HALVES
from bench.registry_report import report


def _row(size, speed, flat):
    live = {
        "registrations": 10,
        "rate": 100.0,
        "lag_p50": 0.01,
        "lag_p99": 0.02,
        "lag_max": 0.03,
        "not_in_force": 0,
        "missed": 0,
        "refresh_max": 0.01,
        "reader_mb_per_second": [1.0],
        "memory": [{"Pss_File": 1.0}],
    }
    row = {
        "size": size,
        "entries": size * 100,
        "segments": 1,
        "bytes_a_shingle": 14.0,
        "file_bytes_a_shingle": 22.0,
        "build": 0.1,
        "floor": {h: 100.0 for h in HALVES},
        "ratio": {h: speed / 100.0 for h in HALVES},
        "flat": flat,
        "one thread": 1.0,
        "two threads": 1.5,
        "live": live,
    }
    for half in HALVES:
        row[half] = speed
        row[f"{half} recall"] = (1.0, 1.0)
    return row


def _report(rows):
    context = {
        "seed": 26,
        "corpus": "a corpus",
        "work": SimpleNamespace(records=[]),
        "halves": {h: [] for h in HALVES},
        "allocator": "glibc's defaults",
    }
    args = SimpleNamespace(readers=4, rate=100.0, seconds=10.0)
    return report(rows, context, args, 60.0, "a machine")


def test_flatness_is_the_ratio_of_the_same_rounds_not_of_the_rows():
    # the rows' own speeds, measured minutes apart, differ by half; the same rounds by 5%
    rows = [_row(1000, 80.0, None), _row(1_000_000, 40.0, {h: 0.95 for h in HALVES})]
    text = _report(rows)
    for half in HALVES:
        assert f"check_many {half} at 1,000,000 / at 1,000, interleaved: 0.95" in text
    assert "(target within 20%): **not met**" not in text
    assert "| - |" in text  # the smallest size has no ratio to itself


def test_a_ratio_beyond_a_fifth_is_not_met():
    rows = [_row(1000, 60.0, None), _row(1_000_000, 60.0, {h: 0.75 for h in HALVES})]
    assert _report(rows).count("interleaved: 0.75 (target within 20%): **not met**") == 2
