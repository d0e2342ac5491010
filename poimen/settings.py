"""Settings for poimen. Everything that differs between machines comes from the environment,
read here and nowhere else (docs/deploy.md lists the variables for a deployment)."""

import os
import tempfile
from datetime import timedelta
from pathlib import Path

from filter.decision import (
    DEFAULT_MIN_SHARED,
    DEFAULT_PASTE_FLOOR,
    DEFAULT_PASTE_WORDS,
    DEFAULT_REPORT_FLOOR,
    DEFAULT_THRESHOLD,
)
from poimen.db.database_url import parse_database_url

# The source tree (or, for an installed package, site-packages): code, never data.
BASE_DIR = Path(__file__).resolve().parent.parent
# Where this installation keeps its data: the SQLite file, the manifest, the collected static
# files. Never inside the installed package; the working directory unless POIMEN_HOME says.
POIMEN_HOME = Path(os.environ.get("POIMEN_HOME") or os.getcwd()).resolve()


# Each setting the environment gets wrong, in a line of its own; raised together at the end of
# this module (cli.py prints them without a traceback).
SETTINGS_PROBLEMS: list[str] = []
_ON, _OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip().lower() not in _ON + _OFF:
        SETTINGS_PROBLEMS.append(f"{name}={value!r} is neither on (1, true, yes, on) nor off")
        return default
    return value.strip().lower() in _ON


def env_number(name: str, default, kind=int):
    """`name` as a whole number (kind int) or a number (float), or `default` when unset."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        number = kind(value)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        SETTINGS_PROBLEMS.append(f"{name}={value!r} is not {what}")
        return default
    if kind is float and number != number:  # NaN
        SETTINGS_PROBLEMS.append(f"{name}={value!r} is not a number")
        return default
    return number


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
# Good only on one's own machine: `serve` refuses to start with it unless DEBUG is on.
DEVELOPMENT_SECRET_KEY = "poimen-development-only-not-a-secret"
SECRET_KEY = os.environ.get("SECRET_KEY") or DEVELOPMENT_SECRET_KEY
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
# Origins (scheme and host) a form may be posted from when they differ from the host the server
# sees, e.g. https://poimen.example.org behind a proxy.
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# htmx shows no error page: a post refused for its CSRF token is told where it was asked.
CSRF_FAILURE_VIEW = "poimen.views.common.csrf_failure"

# POIMEN_HTTPS=1: the desk is reached over HTTPS, through a reverse proxy that terminates TLS and
# sets X-Forwarded-Proto (docs/deploy.md). Everything HTTPS needs follows from that one switch.
POIMEN_HTTPS = env_bool("POIMEN_HTTPS", False)
SECURE_SSL_REDIRECT = POIMEN_HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if POIMEN_HTTPS else None
SESSION_COOKIE_SECURE = POIMEN_HTTPS
CSRF_COOKIE_SECURE = POIMEN_HTTPS
SECURE_HSTS_SECONDS = int(timedelta(days=365).total_seconds()) if POIMEN_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = POIMEN_HTTPS
SECURE_HSTS_PRELOAD = POIMEN_HTTPS

INSTALLED_APPS = [
    # First, so that its runserver (static files collected first) is the one manage.py runs.
    "poimen",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    "axes",
    # the API's docs page: its scripts and styles served from here, never a CDN
    "ninja",
]

MIDDLEWARE = [
    # First: every log line written while a request is answered names it (a 500's traceback).
    "poimen.web.request_ids.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files before anything else touches the request (sessions, auth): cheap and cached.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every page of the desk needs a login; the login view itself is marked exempt.
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "poimen.web.middleware.ContentSecurityPolicyMiddleware",
    # A one-time password from add_user is replaced before any other page (views.accounts).
    "poimen.web.middleware.OneTimePasswordMiddleware",
    # Last, as django-axes asks: it turns a refused login into the lockout page.
    "axes.middleware.AxesMiddleware",
]
# What a request to /api/ goes through when served (poimen.api.handler): the headers the
# middleware above sets on every answer (Content-Length too), without the desk's sessions,
# CSRF, login and lockout (a bearer token authenticates an API request).
API_MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "poimen.web.middleware.ContentSecurityPolicyMiddleware",
]

# Warnings and errors to stderr (journald under systemd), each with the request it happened in:
# a desk or API 500 leaves its traceback there, DEBUG off or not.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "poimen.web.request_ids.RequestIdFilter"}},
    "formatters": {
        "line": {"format": "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"}
    },
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "line",
        }
    },
    # django.request's 500s (with their tracebacks) and poimen's warnings reach the root.
    "root": {"handlers": ["stderr"], "level": "WARNING"},
}

ROOT_URLCONF = "poimen.urls"
WSGI_APPLICATION = "poimen.wsgi.application"

# A source tree keeps templates/ at the top; the wheel carries it inside the package, as
# poimen/templates (setup.py), where the Django engine's APP_DIRS finds it.
_TEMPLATES_IN_PACKAGE = (Path(__file__).parent / "templates").is_dir()
_TEMPLATES = (Path(__file__).parent if _TEMPLATES_IN_PACKAGE else BASE_DIR) / "templates"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [] if _TEMPLATES_IN_PACKAGE else [_TEMPLATES],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    {
        # The list row and the controls it shares (templates/jinja2): Django templates include
        # them with {% jinja %} (templatetags/jinja.py); a view may render one alone.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "NAME": "jinja2",
        "DIRS": [_TEMPLATES / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "poimen.templatetags.jinja_env.environment",
            "autoescape": True,
            "context_processors": ["django.contrib.auth.context_processors.auth"],
        },
    },
]

# Forms' widgets through Django's own Jinja2 templates of them (django/forms/jinja2): the same
# markup in less time, for a list page's fourteen filters (bench/results/, jinja-rows).
FORM_RENDERER = "django.forms.renderers.Jinja2"

try:
    _DATABASE = parse_database_url(
        os.environ.get("DATABASE_URL", ""), default_sqlite=POIMEN_HOME / "db.sqlite3"
    )
except ValueError as error:
    SETTINGS_PROBLEMS.append(str(error))
    _DATABASE = parse_database_url("", default_sqlite=POIMEN_HOME / "db.sqlite3")
if _DATABASE["ENGINE"].endswith("sqlite3"):
    # SQLite has one writer at a time: a transaction takes the write lock as it begins (not
    # at its first write, where a lock held by another cannot be waited for), and waits up to
    # 30 s for it, so an ingest, a verdict and an API call take turns instead of failing.
    _DATABASE["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE"}
    # The test database is a file too: an in-memory one shared between threads (the browser
    # tests' live server) has table locks that no busy timeout waits for.
    _DATABASE["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"poimen-test-{os.getpid()}.sqlite3")
    }

DATABASES = {
    "default": {
        **_DATABASE,
        # A server process keeps its connection from request to request (checked before reuse)
        # rather than paying for a new PostgreSQL backend, cold caches and all, on each.
        "CONN_MAX_AGE": env_number("POIMEN_DB_CONN_MAX_AGE", 600),
        "CONN_HEALTH_CHECKS": True,
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The exclusions' overlap index carries its filter columns (INCLUDE) for PostgreSQL's
# index-only walks; SQLite builds it without them, which is all W040 says.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

AUTHENTICATION_BACKENDS = [
    # First, so a locked-out user and address are refused before a password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Five wrong passwords in a row for one user from one address lock that pair out for 15 minutes
# (each attempt meanwhile starts the 15 minutes again); `unlock_user` lifts it at once.
AXES_FAILURE_LIMIT = env_number("POIMEN_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_number("POIMEN_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_CALLABLE = "poimen.views.lockout.login_locked_out"
AXES_CLIENT_IP_CALLABLE = "poimen.views.lockout.client_address"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False

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
STATIC_ROOT = POIMEN_HOME / "staticfiles"
# Collected with content hashes in their names and compressed (gzip), served by WhiteNoise with
# a year's Cache-Control; `serve` and `runserver` collect them first.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# The append-only JSONL manifest of every emitted artifact (the task card's
# vault/.artifacts.jsonl, docs/card.md), beside the database it belongs to: in the SQLite
# file's folder, or for PostgreSQL in POIMEN_HOME under the database's name, so two databases
# never share one manifest.
_MANIFEST_FOLDER = (
    Path(DATABASES["default"]["NAME"]).parent / "vault"
    if DATABASES["default"]["ENGINE"].endswith("sqlite3")
    else POIMEN_HOME / "vault" / DATABASES["default"]["NAME"]
)
POIMEN_MANIFEST = Path(os.environ.get("POIMEN_MANIFEST") or _MANIFEST_FOLDER / ".artifacts.jsonl")

# The artifact index shared by the processes of this machine (poimen/decision/index_store.py): a
# folder of memory-mapped segment files, one store per database (empty: each process builds its
# own).
POIMEN_INDEX_DIR = os.environ.get("POIMEN_INDEX_DIR", "")
# How stale a process's index may be when nothing signalled a change (a write on another
# machine): the database's index state is read again after this many seconds (0: every check).
POIMEN_INDEX_RECHECK_SECONDS = env_number("POIMEN_INDEX_RECHECK_SECONDS", 0.5, float)

# The app's defaults for the derived rule, the library's (filter.decision) unless set here.
# Record–artifact pairs with at least this overlap are stored as matches (near misses included),
# so a threshold at or above it can be applied from stored matches without re-shingling.
POIMEN_REPORT_FLOOR = env_number("POIMEN_REPORT_FLOOR", DEFAULT_REPORT_FLOOR, float)
# A kind without a policy of its own, and a new kind's policy, start from these.
POIMEN_DEFAULT_THRESHOLD = env_number("POIMEN_DEFAULT_THRESHOLD", DEFAULT_THRESHOLD, float)
POIMEN_DEFAULT_MIN_SHARED = env_number("POIMEN_DEFAULT_MIN_SHARED", DEFAULT_MIN_SHARED)
# What a derived record of a new kind gets: "redact" (its copied passages are cut, the rest stays
# evidence) or "exclude" (the whole record). Kinds that existed before redaction kept "exclude".
POIMEN_DEFAULT_ON_DERIVED = os.environ.get("POIMEN_DEFAULT_ON_DERIVED", "redact")
# A copied passage of this many words is cut from a record of a kind that redacts even when the
# record as a whole is under the threshold (filter.decide); a kind's own may not go below the
# floor, from which the matcher reports such passages (as POIMEN_REPORT_FLOOR for thresholds).
POIMEN_DEFAULT_PASTE_WORDS = env_number("POIMEN_DEFAULT_PASTE_WORDS", DEFAULT_PASTE_WORDS)
POIMEN_PASTE_FLOOR = env_number("POIMEN_PASTE_FLOOR", DEFAULT_PASTE_FLOOR)
# A record bigger than this is reported and skipped rather than stored.
POIMEN_MAX_RECORD_BYTES = env_number("POIMEN_MAX_RECORD_BYTES", 1024 * 1024)
# A JSON document (a ChatGPT export) is parsed whole: this bounds the memory that takes.
POIMEN_MAX_DOCUMENT_BYTES = env_number("POIMEN_MAX_DOCUMENT_BYTES", 256 * 1024 * 1024)
# What one API request may hold (POST /api/v1/check): over that, 413 naming the limits.
POIMEN_API_MAX_RECORDS = env_number("POIMEN_API_MAX_RECORDS", 1000)
POIMEN_API_MAX_BYTES = env_number("POIMEN_API_MAX_BYTES", 10 * 1024 * 1024)
# Seconds a server process keeps a bearer token it recognised (poimen.services.tokens), and
# the sources in shadow mode (poimen.services.sources): a revoke or a mode change holds at
# once in its own process and within this in the others; 0 reads every time.
POIMEN_API_TOKEN_CACHE_SECONDS = env_number("POIMEN_API_TOKEN_CACHE_SECONDS", 5, float)
# The API reads its own bodies up to POIMEN_API_MAX_BYTES (poimen.api.urls); every other
# request keeps Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB).
POIMEN_INGEST_BATCH_SIZE = env_number("POIMEN_INGEST_BATCH_SIZE", 1000)
# Processes that check records while ingest reads and writes (0: check in the ingest process).
# One is the default where there is a second core: matching then overlaps the database writes.
POIMEN_INGEST_WORKERS = env_number("POIMEN_INGEST_WORKERS", 1 if (os.cpu_count() or 1) > 1 else 0)
# `serve`: seconds a gunicorn worker may spend on one request before it is killed and replaced
# (an export of a million records streams for longer than gunicorn's 30 s default).
POIMEN_SERVER_TIMEOUT = env_number("POIMEN_SERVER_TIMEOUT", 300)
# `serve`: gunicorn worker processes (its own advice: two a core, and one).
POIMEN_SERVER_WORKERS = env_number("POIMEN_SERVER_WORKERS", 2 * (os.cpu_count() or 1) + 1)

# `serve`: threads of each worker (gthread): a slow client holds one thread, not a worker.
POIMEN_SERVER_THREADS = env_number("POIMEN_SERVER_THREADS", 8)

# The queue (poimen.celery): with CELERY_BROKER_URL set (Redis, redis://host:6379/0), `ingest
# --queue` and `refilter --queue` send their batches to `celery -A poimen worker` processes on any
# machine that reaches the broker and the database. Unset: the local workers above, as ever.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
# Exactly once: a batch is acknowledged only once it is written (a worker killed mid-batch leaves
# it to be delivered again), one batch reserved a worker process at a time, JSON only.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One, not more: a worker that may take another batch keeps a BRPOP waiting on Redis, and the
# batch Redis pops for a worker killed before it reads the answer is in no list, unacknowledged
# or queued (the kill tests lost one so with 2). Fetching is cheap since a message is only a
# batch's key (services/queued.py: the records wait in Redis beside the queue).
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True  # the database says what was written, not a result backend
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_DEFAULT_QUEUE = "poimen"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # a worker waits out a broker restart
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# A batch a dead worker had taken is delivered again after this many seconds (longer than a
# batch ever takes: a batch redelivered while still running is written once all the same).
POIMEN_QUEUE_VISIBILITY_TIMEOUT = env_number("POIMEN_QUEUE_VISIBILITY_TIMEOUT", 300)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": POIMEN_QUEUE_VISIBILITY_TIMEOUT,
    # Workers look for such batches this often (kombu's default is every 100 s).
    "unacked_restore_interval": max(1, min(10, POIMEN_QUEUE_VISIBILITY_TIMEOUT // 2)),
    "unacked_restore_throttle": 1,
}
# Batches a queued run keeps sent but not yet written (its memory and the queue's depth).
POIMEN_QUEUE_IN_FLIGHT = env_number("POIMEN_QUEUE_IN_FLIGHT", 16)
# A batch no worker has written this many seconds after it was sent is sent again (a broker that
# lost its messages); a batch sent twice is written once.
POIMEN_QUEUE_RESEND_AFTER = env_number("POIMEN_QUEUE_RESEND_AFTER", 600)
# How often a batch is tried when the database is unreachable or a worker dies on it, before
# the batch is reported as failed with its input lines.
POIMEN_QUEUE_MAX_ATTEMPTS = env_number("POIMEN_QUEUE_MAX_ATTEMPTS", 10)

# --- The desk for a team (claims, second reviews); poimen/team/team_rules.py reads these ----------
# A claim takes this many unreviewed records of a filter for one reviewer...
POIMEN_CLAIM_BATCH_SIZE = env_number("POIMEN_CLAIM_BATCH_SIZE", 25)
# ...for this many minutes; then the records a reviewer did not judge return to the pool.
POIMEN_CLAIM_MINUTES = env_number("POIMEN_CLAIM_MINUTES", 60)
# Review mode holds the record it shows a reviewer this many minutes (renewed each time it is
# shown), so that two reviewers never read the same record at once; moving on lets it go.
POIMEN_HOLD_MINUTES = env_number("POIMEN_HOLD_MINUTES", 10)
# The share (0..1) of borderline records (best overlap within the band either side of the kind's
# threshold) that a single verdict sends to a second reviewer, who judges without seeing it.
POIMEN_SECOND_REVIEW_SHARE = env_number("POIMEN_SECOND_REVIEW_SHARE", 0.2, float)
POIMEN_SECOND_REVIEW_BAND = env_number("POIMEN_SECOND_REVIEW_BAND", 0.05, float)

if SETTINGS_PROBLEMS:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("\n".join(SETTINGS_PROBLEMS))
