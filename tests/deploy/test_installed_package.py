"""The wheel, installed as an operator would: built from this tree, installed into a fresh
venv, and run from an empty folder with the `poimen` console script.

To stay quick and work offline, the fresh venv gets the wheel alone (--no-deps) and finds
poimen's dependencies in this test run's own site-packages through a .pth file; poimen itself
comes only from the wheel (the editable install's finder is not loaded there), which the test
checks.
"""

import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What the machine's environment might carry that would point poimen elsewhere.
POIMEN_VARIABLES = (
    "DATABASE_URL",
    "POIMEN_HOME",
    "POIMEN_MANIFEST",
    "DJANGO_SETTINGS_MODULE",
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "POIMEN_HTTPS",
    "PYTHONPATH",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
)


def clean_environment(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in POIMEN_VARIABLES}
    return {**env, **extra}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def clone_copy(folder: Path) -> Path:
    """A copy of what a clone holds, in `folder`: setuptools builds in place, and a build/
    folder left in the tree would carry modules deleted since into the next wheel."""
    source = folder / "source"
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    return source


def build(command: list[str], cwd: Path, env: dict | None = None) -> str:
    """What a build printed (its output and setuptools' warnings), failing the test if it failed."""
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def python_warnings(output: str) -> list[str]:
    """The warnings (BuildBackendWarning: ..., SetuptoolsDeprecationWarning: ...) in `output`."""
    return re.findall(r"\w+Warning: .*", output)


class Installed(NamedTuple):
    bin_folder: Path
    wheel: Path
    seconds: float  # to build and install
    build_output: str


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    base = tmp_path_factory.mktemp("installed")
    started = time.monotonic()
    source = clone_copy(base)
    # -v: setuptools' warnings are shown, for the test that there are none
    output = build(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation"]
        + ["--wheel-dir", str(base / "dist"), str(source)],
        cwd=base,
    )
    (wheel,) = (base / "dist").glob("poimen-*.whl")
    venv = venv_with(wheel, base / "venv")
    seconds = time.monotonic() - started
    print(f"wheel built and installed in {seconds:.1f} s")
    return Installed(venv / "bin", wheel, seconds, output)


def venv_with(wheel: Path, venv: Path) -> Path:
    """A venv at `venv` holding `wheel` alone, its dependencies read from this test's own
    site-packages (a .pth file): what the wheel ships is what runs, nothing is downloaded."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install"]
        + ["--quiet", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
    )
    (site_packages,) = (venv / "lib").glob("python*/site-packages")
    (site_packages / "poimen_test_dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )
    return venv


def poimen(bin_folder, *args, home, timeout=120, **env):
    return subprocess.run(
        [str(bin_folder / "poimen"), *args],
        cwd=home,
        env=clean_environment(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_wheel_carries_templates_static_files_and_demo_data(installed):
    wheel = installed.wheel
    names = zipfile.ZipFile(wheel).namelist()
    # every template, the Jinja2 partials under templates/jinja2 too
    templates = {
        p.relative_to(ROOT / "templates").as_posix() for p in (ROOT / "templates").rglob("*.html")
    }
    assert templates and templates <= {
        n.removeprefix("poimen/templates/") for n in names if n.startswith("poimen/templates/")
    }
    assert "poimen/static/poimen/desk.css" in names
    assert "poimen/static/poimen/desk.js" in names
    demo = [p for p in (ROOT / "poimen" / "demo_data").rglob("*") if p.is_file()]
    assert demo and all(f"{p.relative_to(ROOT)}" in names for p in demo)
    assert not [n for n in names if n.endswith((".sqlite3", ".jsonl.lock")) or "vault/" in n]


def test_the_wheel_builds_without_setuptools_warnings(installed):
    """Every folder of files the wheel carries is a package setuptools was told of: none is
    "absent from the `packages` configuration" (and so liable to be left out one day)."""
    assert python_warnings(installed.build_output) == []


def test_the_sdist_carries_the_sources_the_matcher_is_built_from(tmp_path):
    source = clone_copy(tmp_path)
    code = "from setuptools import build_meta; build_meta.build_sdist('../dist')"
    output = build([sys.executable, "-c", code], cwd=source)
    assert python_warnings(output) == []
    (sdist,) = (tmp_path / "dist").glob("poimen-*.tar.gz")
    names = {name.split("/", 1)[1] for name in tarfile.open(sdist).getnames() if "/" in name}
    assert {"filter/_speedups.c", "filter/vendor/xxhash/xxhash.h", "setup.py"} <= names
    assert {"filter/vendor/xxhash/LICENSE", "templates/base.html"} <= names
    assert "poimen/demo_data/transcripts/records.jsonl" in names


def test_the_wheel_carries_the_compiled_matcher_and_its_licence(installed, tmp_path):
    bin_folder, wheel = installed.bin_folder, installed.wheel
    names = zipfile.ZipFile(wheel).namelist()
    assert [n for n in names if re.fullmatch(r"filter/_speedups\..*\.so", n)], names
    assert "filter/vendor/xxhash/LICENSE" in names
    assert not [n for n in names if n.endswith((".c", ".h"))]
    result = poimen(bin_folder, "--version", home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "matcher: compiled (filter._speedups)" in result.stdout, result.stdout


def test_the_wheel_ships_the_matcher_without_test_or_bench_code(installed):
    """filter/ ships the matcher alone: its test support (tests/renderings.py) and the
    benchmarks stay in the repository."""
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert not [n for n in names if n.startswith(("tests/", "bench/")) or "renderings" in n]
    assert "filter/matcher.py" in names


def test_without_a_compiler_the_wheel_builds_and_runs_in_pure_python(tmp_path):
    """The C extension is optional (setup.py): with CC pointing nowhere and no compiler on the
    PATH, the wheel still builds, and the matcher runs in pure Python and says so."""
    source = clone_copy(tmp_path)
    hidden = tmp_path / "bin"  # the PATH of the build: an empty folder, no gcc, no cc
    hidden.mkdir()
    build(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
        + ["--wheel-dir", str(tmp_path / "dist"), str(source)],
        cwd=tmp_path,
        env=clean_environment(CC="/nonexistent", PATH=str(hidden)),
    )
    (wheel,) = (tmp_path / "dist").glob("poimen-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "filter/matcher.py" in names
    assert not [n for n in names if "_speedups" in n]
    venv = venv_with(wheel, tmp_path / "venv")
    result = poimen(venv / "bin", "--version", home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "matcher: pure Python (filter._speedups is not built" in result.stdout, result.stdout
    assert "poimen's matcher runs in pure Python" in result.stderr


def test_the_installed_poimen_comes_from_the_wheel(installed):
    bin_folder = installed.bin_folder
    where = subprocess.run(
        [str(bin_folder / "python"), "-c", "import poimen; print(poimen.__file__)"],
        cwd=bin_folder,
        env=clean_environment(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(bin_folder.parent)), where


def test_a_fresh_folder_is_told_to_migrate_without_a_traceback(installed, tmp_path):
    bin_folder = installed.bin_folder
    result = poimen(bin_folder, "verify_derived", home=tmp_path)
    assert result.returncode == 2
    assert "database not migrated" in result.stderr
    assert "run `poimen migrate`" in result.stderr
    assert "Traceback" not in result.stderr


def read(url, opener=None, **headers):
    request = urllib.request.Request(url, headers=headers)
    with (opener or urllib.request.build_opener()).open(request, timeout=10) as response:
        return response.status, dict(response.headers), response.read()


def wait_until_up(url, server, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stdout.read()
        try:
            return read(url)
        except (urllib.error.URLError, ConnectionError, TimeoutError):  # a busy machine: ask again
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer within {seconds} s")


def log_in(base_url, username, password):
    """An opener holding the session of `username`, logged in through the login form."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    _, _, page = read(base_url + "/login/", opener)
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
    form = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": token, "username": username, "password": password}
    ).encode()
    with opener.open(base_url + "/login/", data=form, timeout=10) as response:
        assert response.url == base_url + "/", "the login did not land on the overview"
    return opener


def test_from_an_empty_folder_migrate_demo_and_serve(installed, tmp_path):
    bin_folder, wheel = installed.bin_folder, installed.wheel
    home = tmp_path / "poimen-home"
    home.mkdir()

    migrated = poimen(bin_folder, "migrate", home=home)
    assert migrated.returncode == 0, migrated.stderr
    demo = poimen(bin_folder, "demo", "--no-serve", home=home)
    assert demo.returncode == 0, demo.stderr
    password = re.search(r"log in as reviewer / (\S+)", demo.stdout).group(1)
    assert (home / "db.sqlite3").is_file()
    assert (home / "vault" / ".artifacts.jsonl").is_file()

    port = free_port()
    server = subprocess.Popen(
        [str(bin_folder / "poimen"), "serve", "--port", str(port), "--workers", "2"],
        cwd=home,
        env=clean_environment(SECRET_KEY="a-test-key-" + "x9" * 30),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        status, _, page = wait_until_up(base_url + "/login/", server)
        assert status == 200
        assert b"Log in to the review desk" in page

        css = re.search(rb'href="(/static/poimen/desk\.[0-9a-f]{12}\.css)"', page).group(1)
        status, headers, body = read(base_url + css.decode(), **{"Accept-Encoding": "gzip"})
        assert status == 200
        assert headers["Content-Encoding"] == "gzip"
        max_age = int(re.search(r"max-age=(\d+)", headers["Cache-Control"]).group(1))
        assert max_age >= 365 * 24 * 3600 and "immutable" in headers["Cache-Control"]
        assert len(body) < (home / "staticfiles" / css.decode()[len("/static/") :]).stat().st_size

        opener = log_in(base_url, "reviewer", password)
        for path in ("/", "/exclusions/", "/near-misses/", "/artifacts/", "/runs/", "/audit/"):
            status, _, page = read(base_url + path, opener)
            assert status == 200, path
        assert b"release-notes" in read(base_url + "/artifacts/", opener)[2]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)

    # Data lives in the home folder; the installed package holds what the wheel brought.
    site_packages = next((bin_folder.parent / "lib").glob("python*/site-packages"))
    installed_files = {
        str(p.relative_to(site_packages))
        for p in (site_packages / "poimen").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert installed_files == {
        n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("poimen/")
    }
    assert (home / "staticfiles" / "staticfiles.json").is_file()
    manifest = json.loads((home / "vault" / ".artifacts.jsonl").read_text().splitlines()[0])
    assert manifest["kind"] in ("skill", "reference")
