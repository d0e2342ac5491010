"""unlock_user of a name that is neither an account nor locked out: a typo, said so, exit 2."""

import pytest
from django.core.management import CommandError, call_command


def test_unlock_user_of_an_unknown_name_is_a_named_error(db):
    with pytest.raises(CommandError, match="no user 'rtia', and no lockout") as raised:
        call_command("unlock_user", "rtia")
    assert raised.value.returncode == 2
