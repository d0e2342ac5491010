"""glibc's allocator settings for a process that checks records in batches.

With glibc's defaults a batch's large arrays (a few MB each) go back to the kernel after each
batch and are faulted in again by the next: a fifth of check_many's time with a thousand
artifacts (bench/results/registry-2026-12-06-floor-cut.md). With these they stay in the heap,
up to 64 MB. Every process that starts poimen's Django sets them (PoimenConfig.ready: the
server's workers, the queue workers, `refilter` and the other commands); `poimen serve` also
gives them to gunicorn's environment. A setting the environment holds is the operator's:
glibc read it as the process started, and it is left alone.
"""

import ctypes
import os

# the environment's names (glibc's tunables as MALLOC_*_ variables), in bytes
CHECKING_ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "67108864"}
# mallopt's parameter for each (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD in glibc's malloc.h)
_MALLOPT = {"MALLOC_MMAP_THRESHOLD_": -3, "MALLOC_TRIM_THRESHOLD_": -1}


def use_checking_allocator() -> list[str]:
    """CHECKING_ALLOCATOR in force in this process, each setting the environment does not
    hold, through glibc's mallopt: the names it set (none where the C library is not glibc)."""
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 (glibc's alone: musl and macOS lack it)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return []
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return [
        name
        for name, value in CHECKING_ALLOCATOR.items()
        if name not in os.environ and mallopt(_MALLOPT[name], int(value)) == 1
    ]
