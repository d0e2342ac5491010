"""The URLs of an API request served by poimen.api.handler: the API's, where poimen.urls
mounts them."""

from django.urls import path

from poimen.api.urls import api_urls

urlpatterns = [path("api/v1/", api_urls)]
