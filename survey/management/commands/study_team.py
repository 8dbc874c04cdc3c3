from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from survey import access
from survey.management.reporting import find_study, refused
from wojdb.core.vocabulary import ROLES


class Command(BaseCommand):
    help = (
        "List a study's team, or change it: --add USER ROLE adds a researcher (or changes their "
        "role), --remove USER takes them out. Roles: owner (everything, and the team), manager "
        "(builds, launches, clears pilot data, edits texts, reviews paper answers), analyst "
        "(report, release, exports) and viewer (the dashboard's counts and figures). A study "
        "keeps at least one owner. Each change is on the study's record."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", metavar="SLUG", help="the study's slug")
        change = parser.add_mutually_exclusive_group()
        change.add_argument(
            "--add", nargs=2, metavar=("USER", "ROLE"), help=f"ROLE one of {', '.join(ROLES)}"
        )
        change.add_argument("--remove", metavar="USER", help="the user to take out of the team")

    def handle(self, slug, add, remove, verbosity, **_):
        study = find_study(slug)
        try:
            if add:
                name, role = add
                access.set_role(study, _researcher(name), role)
                self.stdout.write(f"{name} is {role} of {slug}.")
            elif remove:
                access.remove_member(study, _researcher(remove))
                self.stdout.write(f"{remove} left the team of {slug}.")
        except access.TeamError as e:
            raise refused(f"{e}. Nothing was changed.") from None
        if verbosity and not (add or remove):
            members = study.members.select_related("user")
            for member in members:
                self.stdout.write(f"{member.user.get_username()}\t{member.role}")
            if not members:
                self.stdout.write(f"{slug} has no team: only superusers see it.")


def _researcher(name: str):
    user = get_user_model().objects.filter(username=name).first()
    if user is None:
        raise refused(
            f"no user {name!r}: make the account first (`add_researcher {name}`). Nothing was "
            "changed."
        )
    if not user.is_staff:
        raise refused(
            f"{name!r} is not staff, so cannot sign in to the researcher pages: give the "
            f"account staff status first (`add_researcher {name}`). Nothing was changed."
        )
    return user
