"""A team's roles: who may read the desk, judge records, tune thresholds. Defined once, here;
the migration that creates the groups and the `add_user` command both ask it."""

from dataclasses import dataclass

# What everyone with an account may look at, in the Django admin as on the desk.
VIEW_PERMISSIONS = (
    "view_artifact",
    "view_record",
    "view_match",
    "view_event",
    "view_ingestrun",
    "view_kindpolicy",
    "view_thresholdchange",
    "view_review",
)


@dataclass(frozen=True)
class Role:
    name: str
    group: str | None  # the group that holds its permissions; a reader needs none
    permissions: tuple[str, ...]
    staff: bool  # may open the (read-only) Django admin
    does: str


ROLES = {
    role.name: role
    for role in (
        Role("reader", None, (), False, "reads the desk, judges nothing"),
        Role(
            "reviewer",
            "reviewers",
            (*VIEW_PERMISSIONS, "review_record"),
            False,
            "judges exclusions and near misses",
        ),
        Role(
            "admin",
            "threshold admins",
            (*VIEW_PERMISSIONS, "review_record", "tune_threshold"),
            True,
            "judges, tunes thresholds, reads the Django admin",
        ),
    )
}


def role_groups_sync(*, group_model, permission_model) -> None:
    """Make each role's group hold exactly its permissions (the models may be historical ones,
    as a migration has them)."""
    for role in ROLES.values():
        if role.group is None:
            continue
        group, _ = group_model.objects.get_or_create(name=role.group)
        group.permissions.set(
            permission_model.objects.filter(
                content_type__app_label="poimen", codename__in=role.permissions
            )
        )
