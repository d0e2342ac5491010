"""A poimen process keeps a batch's large buffers in the heap from one batch to the next
(poimen/allocator.py): its Django start sets glibc's thresholds, unless the environment holds
them. Observed as the kernel sees it: the page faults of a second batch of buffers."""

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from poimen.allocator import CHECKING_ALLOCATOR, use_checking_allocator

ROOT = Path(__file__).resolve().parents[2]

# Two rounds of what a batch allocates (sixteen 1 MB buffers, written, freed); the page faults
# of the second. With glibc's defaults the freed heap top goes back to the kernel (the trim
# threshold follows the largest buffer freed: 2 MB) and the second round faults it in again.
BATCHES = """
import ctypes, os, resource, sys
if sys.argv[1] == "django":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
    import django
    django.setup()
libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, (ctypes.c_size_t,)
libc.free.argtypes = (ctypes.c_void_p,)
for _ in range(2):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    buffers = [libc.malloc(1 << 20) for _ in range(16)]
    for buffer in buffers:
        ctypes.memset(buffer, 1, 1 << 20)
    for buffer in buffers:
        libc.free(buffer)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
    reason="glibc's allocator settings",
)


def _second_round_faults(how: str, **environ) -> int:
    env = {k: v for k, v in os.environ.items() if k not in CHECKING_ALLOCATOR}
    done = subprocess.run(
        [sys.executable, "-c", BATCHES, how],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**env, **environ},
        timeout=120,
        check=True,
    )
    return int(done.stdout.split()[-1])


def test_a_poimen_process_keeps_a_batchs_buffers_for_the_next():
    plain = _second_round_faults("plain")
    poimen = _second_round_faults("django")

    assert plain > 2000  # 16 MB faulted in again: the cost poimen's processes avoid
    assert poimen < plain / 8


def test_the_environments_settings_are_the_operators():
    # a trim threshold of 1 MB set by the operator: the freed buffers go back again
    assert _second_round_faults("django", MALLOC_TRIM_THRESHOLD_="1048576") > 2000


def test_it_sets_what_the_environment_leaves(monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "67108864")
    assert use_checking_allocator() == ["MALLOC_MMAP_THRESHOLD_"]
