"""The API's one NinjaAPI, its routers, and the URLs it adds under /api/v1/."""

from django.contrib.auth.decorators import login_not_required
from ninja import NinjaAPI

from poimen.api import artifacts, check, errors, health, records
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
for module in (check, artifacts, records, health):
    api.add_router("", module.router)

urlpatterns, app_name, namespace = api.urls
# The desk's login wall is for people; the API asks for a bearer token instead, and its
# schema and docs page are public.
for pattern in urlpatterns:
    login_not_required(pattern.callback)
api_urls = (urlpatterns, app_name, namespace)
