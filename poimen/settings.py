"""Settings for poimen. Everything that differs between machines comes from the environment."""

import os
from pathlib import Path

from filter.decision import DEFAULT_MIN_SHARED, DEFAULT_REPORT_FLOOR, DEFAULT_THRESHOLD
from poimen.database_url import parse_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


DEBUG = env_bool("DEBUG", False)
# The development default is only good on one's own machine; production sets SECRET_KEY.
SECRET_KEY = os.environ.get("SECRET_KEY", "poimen-development-only-not-a-secret")
ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    # the API's docs page: its scripts and styles served from here, never a CDN
    "ninja",
    "poimen",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every page of the desk needs a login; the login view itself is marked exempt.
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "poimen.middleware.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "poimen.urls"
WSGI_APPLICATION = "poimen.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": parse_database_url(
        os.environ.get("DATABASE_URL", ""), default_sqlite=BASE_DIR / "db.sqlite3"
    )
}
# Server processes keep their connection between requests (a new PostgreSQL connection costs
# more than an API check); checked before reuse, so a restarted database is no error.
DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("CONN_MAX_AGE", "60"))
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# The append-only JSONL manifest of every emitted artifact (the card's vault/.artifacts.jsonl).
POIMEN_MANIFEST = Path(os.environ.get("POIMEN_MANIFEST", BASE_DIR / "vault" / ".artifacts.jsonl"))

# The app's defaults for the derived rule, the library's (filter.decision) unless set here.
# Record–artifact pairs with at least this overlap are stored as matches (near misses included),
# so a threshold at or above it can be applied from stored matches without re-shingling.
POIMEN_REPORT_FLOOR = float(os.environ.get("POIMEN_REPORT_FLOOR", DEFAULT_REPORT_FLOOR))
# A kind without a policy of its own, and a new kind's policy, start from these.
POIMEN_DEFAULT_THRESHOLD = float(os.environ.get("POIMEN_DEFAULT_THRESHOLD", DEFAULT_THRESHOLD))
POIMEN_DEFAULT_MIN_SHARED = int(os.environ.get("POIMEN_DEFAULT_MIN_SHARED", DEFAULT_MIN_SHARED))
# A record bigger than this is reported and skipped rather than stored.
POIMEN_MAX_RECORD_BYTES = int(os.environ.get("POIMEN_MAX_RECORD_BYTES", str(1024 * 1024)))
# What one API request may hold (POST /api/v1/check): over that, 413 naming the limits.
POIMEN_API_MAX_RECORDS = int(os.environ.get("POIMEN_API_MAX_RECORDS", "1000"))
POIMEN_API_MAX_BYTES = int(os.environ.get("POIMEN_API_MAX_BYTES", str(10 * 1024 * 1024)))
# Django refuses a bigger body before any view reads it; the API's limit is the one that holds.
DATA_UPLOAD_MAX_MEMORY_SIZE = POIMEN_API_MAX_BYTES
POIMEN_INGEST_BATCH_SIZE = int(os.environ.get("POIMEN_INGEST_BATCH_SIZE", "1000"))
# Processes that check records while ingest reads and writes (0: check in the ingest process).
# One is the default where there is a second core: matching then overlaps the database writes.
POIMEN_INGEST_WORKERS = int(
    os.environ.get("POIMEN_INGEST_WORKERS", "1" if (os.cpu_count() or 1) > 1 else "0")
)
