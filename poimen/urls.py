from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from poimen.api.urls import api_urls
from poimen.views import (
    accounts,
    artifacts,
    audit,
    export,
    guidelines,
    lists,
    overview,
    record,
    review,
    rows,
    runs,
    saved_filters,
    team,
    tuning,
)

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="login.html", redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Where a new team member replaces the one-time password `add_user` printed.
    path("password/", accounts.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password/changed/",
        auth_views.PasswordChangeDoneView.as_view(template_name="password_changed.html"),
        name="password_changed",
    ),
    path("", overview.overview, name="overview"),
    path("exclusions/", lists.exclusions, name="exclusions"),
    path("exclusions/bulk/", lists.exclusions_bulk, name="exclusions_bulk"),
    path(
        "exclusions/bulk/<int:event_id>/undo/",
        lists.exclusions_bulk_undo,
        name="exclusions_bulk_undo",
    ),
    path("review/", review.review, name="review"),
    path("export/", export.export, name="export"),
    path("near-misses/", lists.near_misses, name="near_misses"),
    path("records/<int:record_id>/", record.record, name="record"),
    path("records/<int:record_id>/review/", record.record_review, name="record_review"),
    path("records/<int:record_id>/undo/", record.record_undo, name="record_undo"),
    path("records/<int:record_id>/note/", record.record_note, name="record_note"),
    # Each screen that judges posts to its own URLs: a list row (views/rows.py) and review
    # mode (views/review.py) besides the record page above.
    path("rows/<str:list_name>/<int:record_id>/review/", rows.row_review, name="row_review"),
    path("rows/<str:list_name>/<int:record_id>/undo/", rows.row_undo, name="row_undo"),
    path("rows/<str:list_name>/<int:record_id>/note/", rows.row_note, name="row_note"),
    path("review/<int:record_id>/verdict/", review.review_verdict, name="review_verdict"),
    path("review/<int:record_id>/undo/", review.review_undo, name="review_undo"),
    path("review/<int:record_id>/note/", review.review_note, name="review_note"),
    path("artifacts/", artifacts.artifacts, name="artifacts"),
    path("artifacts/<int:artifact_id>/", artifacts.artifact, name="artifact"),
    path("runs/", runs.runs, name="runs"),
    path("audit/", audit.audit, name="audit"),
    path("tuning/", tuning.tuning, name="tuning"),
    path("tuning/<str:kind>/", tuning.tuning_kind, name="tuning_kind"),
    path("tuning/<str:kind>/policy/", tuning.tuning_policy, name="tuning_policy"),
    # The team's review guidelines (views/guidelines.py).
    path("guidelines/", guidelines.guidelines, name="guidelines"),
    path("guidelines/edit/", guidelines.guidelines_edit, name="guidelines_edit"),
    # A reviewer's saved filters (views/saved_filters.py).
    path("filters/", saved_filters.saved_filters, name="saved_filters"),
    path("filters/save/", saved_filters.saved_filter_save, name="saved_filter_save"),
    path("filters/<int:saved_id>/", saved_filters.saved_filter_apply, name="saved_filter_apply"),
    path(
        "filters/<int:saved_id>/rename/",
        saved_filters.saved_filter_rename,
        name="saved_filter_rename",
    ),
    path(
        "filters/<int:saved_id>/delete/",
        saved_filters.saved_filter_delete,
        name="saved_filter_delete",
    ),
    # The desk for a team: claims, second (blind) reviews, disagreements (poimen/views/team.py).
    path("claims/", team.claim, name="claim"),
    path("claims/release/", team.claims_release, name="claims_release"),
    path("team/", team.team, name="team"),
    path("team/second/", team.second_review, name="second_review"),
    path("team/second/<int:second_id>/", team.second_review_give, name="second_review_give"),
    path("team/disagreements/", team.disagreements, name="disagreements"),
    path(
        "team/disagreements/<int:second_id>/settle/",
        team.disagreement_settle,
        name="disagreement_settle",
    ),
    path("admin/", admin.site.urls),
    path("api/v1/", api_urls),
]

# htmx shows no error page: a 403 or 404 it asked for is told as a refusal (views/common.py).
handler403 = "poimen.views.common.permission_denied"
handler404 = "poimen.views.common.page_not_found"
