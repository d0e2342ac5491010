"""The house's layers hold: every module imports on its own (nothing of ours loaded before it but
the app registry), the Django-free packages import nothing of Django, and the import graph has no
cycle and no import a package's docstring does not allow (scripts/import-cycles)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = ("poimen", "filter")

# Each module imported alone, in one process: what Django's set-up loads (settings, the models,
# the app's ready()) stays; every other module of ours is forgotten before the next import, so a
# module that works only once another has run first fails here, naming itself.
EACH_ALONE = """
import importlib, os, sys, traceback
from pathlib import Path
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
import django
django.setup()
root = Path(sys.argv[1])
names = []
for top in ("poimen", "filter"):
    for path in sorted((root / top).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if "migrations" in parts or parts[-1] == "__init__" and len(parts) == 1:
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
loaded = set(sys.modules)
failed = 0
for name in names:
    for other in [m for m in sys.modules if m.split(".")[0] in ("poimen", "filter")]:
        if other not in loaded:
            del sys.modules[other]
    try:
        importlib.import_module(name)
    except Exception:
        failed += 1
        print(f"{name}: does not import alone", traceback.format_exc(limit=-3), sep="\\n")
print(f"{len(names)} modules, {failed} failed")
sys.exit(1 if failed else 0)
"""

DJANGO_FREE = ["filter", "poimen.readers", "poimen.agent.client", "poimen.agent.hook"]


def _python(code: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )


def test_every_module_imports_alone():
    done = _python(EACH_ALONE, str(ROOT))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


def test_the_agent_side_imports_nothing_of_django():
    code = (
        f"import {', '.join(DJANGO_FREE)}, sys; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'ninja')))"
    )
    done = _python(code, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_no_import_cycle_and_no_import_a_package_does_not_allow():
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "import-cycles")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
