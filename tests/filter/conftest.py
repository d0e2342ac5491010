"""Every test of the matcher runs twice: with the compiled hot loops (filter/_speedups.c) and
with the pure-Python code they replace (filter/speedups.py), which must decide alike."""

import pytest

from filter import speedups


@pytest.fixture(autouse=True, params=["compiled", "pure-python"])
def implementation(request):
    if request.param == "pure-python":
        with speedups.pure_python():
            yield request.param
        return
    if speedups.built is None:
        pytest.skip(f"the compiled matcher is not in use: {speedups.status}")
    yield request.param
