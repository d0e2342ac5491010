"""Turn a DATABASE_URL into Django's DATABASES entry.

Small on purpose: poimen speaks to PostgreSQL (through psycopg 3) or SQLite, nothing else.
"""

from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit


def parse_database_url(url: str, *, default_sqlite: Path) -> dict:
    """Return a DATABASES["default"] dict for `url`; an empty url means the SQLite file."""
    if not url:
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(default_sqlite)}
    parts = urlsplit(url)
    if parts.scheme in ("postgres", "postgresql", "pgsql"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parts.path.lstrip("/")),
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            "OPTIONS": dict(parse_qsl(parts.query)),
        }
    if parts.scheme == "sqlite":
        # sqlite:///relative.db or sqlite:////absolute/path.db
        path = url[len("sqlite://") :].lstrip("/") if url.startswith("sqlite:///") else ""
        if url.startswith("sqlite:////"):
            path = "/" + path
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": path or str(default_sqlite)}
    raise ValueError(
        f"DATABASE_URL: unsupported scheme {parts.scheme!r}; use postgres://… or sqlite:///…"
    )
