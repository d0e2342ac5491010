"""The team's groups: reviewers and threshold admins, with their permissions (poimen.team.roles)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from poimen.team.roles import role_groups_sync


def create_groups(apps, schema_editor):
    # Permissions are made after all migrations ran; this one needs them now.
    config = apps.get_app_config("poimen")
    config.models_module = True
    create_permissions(config, apps=apps, verbosity=0, using=schema_editor.connection.alias)
    config.models_module = None
    role_groups_sync(
        group_model=apps.get_model("auth", "Group"),
        permission_model=apps.get_model("auth", "Permission"),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("poimen", "0007_event_accounts"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, migrations.RunPython.noop)]
