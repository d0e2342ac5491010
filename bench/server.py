"""The production server for a benchmark: `manage.py serve` on a free port of 127.0.0.1, and a
function that sends it the requests a benchmark times, logged in through the login form."""

import contextlib
import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def production_server(database_url: str, username: str, password: str, workers: int = 2):
    """A `get(url, headers)` speaking HTTP to `manage.py serve`, logged in as `username`."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = tempfile.mkdtemp(prefix="poimen-desk-bench-")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "POIMEN_HOME": home,
        "SECRET_KEY": "bench-desk-only-" + "k" * 40 + "-not-a-real-secret",
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "serve", "--port", str(port)]
        + ["--workers", str(workers)],
        env=env,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                page = opener.open(base + "/login/", timeout=10).read().decode()
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the production server did not start") from None
                time.sleep(0.5)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        form = {"csrfmiddlewaretoken": token, "username": username, "password": password}
        if opener.open(base + "/login/", urllib.parse.urlencode(form).encode()).url != base + "/":
            raise SystemExit(f"could not log in to the production server as {username}")

        def get(url, headers):
            path, _, query = url.partition("?")
            query = urllib.parse.urlencode(urllib.parse.parse_qsl(query))
            names = {key[len("HTTP_") :].replace("_", "-").title(): v for key, v in headers.items()}
            request = urllib.request.Request(
                base + path + ("?" + query if query else ""), headers=names
            )
            try:
                with opener.open(request, timeout=30) as response:
                    response.read()
                    return response.status
            except urllib.error.HTTPError as error:
                return error.code

        yield get
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
