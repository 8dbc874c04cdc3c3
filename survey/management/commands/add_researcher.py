import secrets

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand
from django.core.validators import validate_email

from survey.management.reporting import refused


class Command(BaseCommand):
    help = (
        "Make a researcher's account: a staff account, which signs in to the researcher pages "
        "and sees the studies whose team it is in (study_team), with no other right. A new "
        "account gets a password printed once, for its owner to change after signing in (the "
        "researcher pages' Password link); an existing account without staff status is given "
        "it, its password kept. A forgotten password is reset with `changepassword USER`."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", metavar="USER", help="the account's user name")
        parser.add_argument("--email", default="", help="the researcher's e-mail address")

    def handle(self, username, email, **_):
        users = get_user_model()
        # The model field's own rules: its characters and its length.
        _valid("USER", username, users._meta.get_field("username").run_validators)
        if email:
            _valid("--email", email, validate_email)
        user = users.objects.filter(username=username).first()
        if user is not None and user.is_staff:
            raise refused(
                f"{username!r} is a researcher already: add them to a study with `study_team "
                f"SLUG --add {username} ROLE`, or reset a forgotten password with "
                f"`changepassword {username}`. Nothing was changed."
            )
        if user is not None:
            user.is_staff = True
            user.email = email or user.email
            user.save(update_fields=["is_staff", "email"])
            self.stdout.write(
                f"{username} is a researcher now (staff status given, password kept)."
            )
        else:
            password = secrets.token_urlsafe(12)
            users.objects.create_user(username, email=email, password=password, is_staff=True)
            self.stdout.write(
                f"Made the researcher account {username}. Its password, shown this once: "
                f"{password}\nThey change it after signing in: the researcher pages' Password "
                "link (/admin/password_change/)."
            )
        self.stdout.write(f"Add them to a study with `study_team SLUG --add {username} ROLE`.")


def _valid(name: str, value: str, validator) -> None:
    try:
        validator(value)
    except ValidationError as error:
        raise refused(f"{name}: {' '.join(error.messages)} Nothing was changed.") from None
