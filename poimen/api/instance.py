"""The API's one NinjaAPI and its error handlers: what urls.py mounts the routers on, and what an
endpoint that builds its own answer renders it with."""

from ninja import NinjaAPI

from poimen.api import errors
from poimen.api.auth import BearerToken

api = NinjaAPI(
    title="poimen",
    version="1",
    description=(
        "Check the records a memory system is about to store against every artifact it "
        "emitted, and register what it emits. Send `Authorization: Bearer <token>`."
    ),
    auth=BearerToken(),
    urls_namespace="api",
)
errors.install(api)
