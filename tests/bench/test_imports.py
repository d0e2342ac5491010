"""Every bench module imports: a bench is run by hand, weeks apart, and one that names a
function the code has since renamed fails only when someone needs its figures."""

import importlib
import pkgutil

import pytest

import bench

MODULES = sorted(module.name for module in pkgutil.iter_modules(bench.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_the_bench_module_imports(name):
    module = importlib.import_module(f"bench.{name}")
    assert module.__name__ == f"bench.{name}"
