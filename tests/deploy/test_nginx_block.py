"""The nginx block of docs/deploy.md passes `nginx -t` on the nginx installed here (Debian 12's
1.22 in CI: it has no `http2 on;`), with a throwaway certificate in place of Let's Encrypt's."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")

pytestmark = pytest.mark.skipif(not (NGINX and shutil.which("openssl")), reason="no nginx here")


def deploy_block() -> str:
    section = DEPLOY.read_text(encoding="utf-8").split("## 7. nginx in front")[1].split("## 8")[0]
    lines = [line for line in section.splitlines() if line.startswith("    ")]
    return "\n".join(line[4:] for line in lines if not line.lstrip().startswith("location /static"))


def test_the_nginx_block_passes_nginx_t(tmp_path):
    key, cert = tmp_path / "privkey.pem", tmp_path / "fullchain.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=poimen.example.org", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    block = re.sub(r"/etc/letsencrypt/live/poimen\.example\.org/", f"{tmp_path}/", deploy_block())
    assert "server {" in block and "proxy_pass" in block
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
        f"http {{\naccess_log off;\n{block}\n}}\n",
        encoding="utf-8",
    )
    checked = subprocess.run(
        [NGINX, "-t", "-c", str(conf), "-p", str(tmp_path)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
