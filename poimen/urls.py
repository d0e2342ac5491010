from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from poimen import views
from poimen.api.urls import api_urls

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="login.html", redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", views.overview, name="overview"),
    path("exclusions/", views.exclusions, name="exclusions"),
    path("exclusions/bulk/", views.exclusions_bulk, name="exclusions_bulk"),
    path("export/", views.export, name="export"),
    path("near-misses/", views.near_misses, name="near_misses"),
    path("records/<int:record_id>/", views.record, name="record"),
    path("records/<int:record_id>/review/", views.record_review, name="record_review"),
    path("records/<int:record_id>/undo/", views.record_undo, name="record_undo"),
    path("artifacts/", views.artifacts, name="artifacts"),
    path("artifacts/<int:artifact_id>/", views.artifact, name="artifact"),
    path("runs/", views.runs, name="runs"),
    path("audit/", views.audit, name="audit"),
    path("tuning/", views.tuning, name="tuning"),
    path("tuning/<str:kind>/", views.tuning_kind, name="tuning_kind"),
    path("admin/", admin.site.urls),
    path("api/v1/", api_urls),
]
