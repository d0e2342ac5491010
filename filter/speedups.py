"""Whether the matcher's hot loops run compiled (filter/_speedups.c) or in pure Python.

The C module normalises a batch's texts, cuts their markup and hashes their words in one pass a
text, and chains anchors into passages, the two loops that make most of a check's cost;
filter/normalise.py, filter/shingles.py and filter/align.py hold the pure-Python form of each,
which is the reference (tests/filter runs every test on both) and the fallback wherever the
module is not built. Both give the same shingles and passages, so which one runs changes how
fast a check is, never what it decides.

POIMEN_PURE_PYTHON=1 in the environment turns the compiled module off; it is read here and
nowhere else. `poimen --version` says which is in use (`status`).
"""

import importlib.util
import logging
import os
from contextlib import contextmanager

PURE_PYTHON_ENV = "POIMEN_PURE_PYTHON"
# The module's API (SPEEDUPS_API in _speedups.c) this code was written for: an editable checkout
# can hold a .so built from an older _speedups.c, which is then not used.
API = 12


def _load():
    if os.environ.get(PURE_PYTHON_ENV, "").strip() not in ("", "0"):
        return None, f"pure Python ({PURE_PYTHON_ENV} is set)"
    try:
        from filter import _speedups
    except ImportError as error:
        if importlib.util.find_spec("filter._speedups") is None:
            # pip install without a compiler: the extension is optional (setup.py)
            return None, "pure Python (filter._speedups is not built: no C compiler at install)"
        return None, f"pure Python (filter._speedups does not load: {error})"
    if getattr(_speedups, "API", None) != API:
        return None, (
            f"pure Python (filter._speedups is a stale build, API {getattr(_speedups, 'API', '?')}"
            f" where {API} is needed: pip install -e . again)"
        )
    return _speedups, "compiled (filter._speedups)"


# The C module, or None; the hot paths read this attribute at each call.
compiled, status = _load()
if compiled is None and PURE_PYTHON_ENV not in status:
    # Same verdicts, several times slower: worth a line where it was not asked for.
    logging.getLogger(__name__).warning("poimen's matcher runs in %s", status)
# The module as loaded, whatever pure_python() does for a while.
built = compiled


@contextmanager
def pure_python():
    """Run the pure-Python code for the duration, whether or not the C module is built."""
    global compiled
    before, compiled = compiled, None
    try:
        yield
    finally:
        compiled = before
