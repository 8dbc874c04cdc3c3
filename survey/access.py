"""Who may see and do what on the researcher pages: each study's team, and each member's role.

A researcher page asks `study_for(request, slug, right)`: a study the user has no place in is
answered exactly as a study that does not exist (404), so slugs cannot be probed; a member whose
role lacks the right is refused (403). Superusers have every right on every study. Commands run
by the server's operator are not asked: they keep full rights.
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from survey import record
from survey.models import Study, StudyMember
from wojdb.core.vocabulary import ANALYST, MANAGER, OWNER, VIEWER

#: See the study's dashboard: status, counts, balance and figures, nothing of any person.
VIEW = "view"
#: Build, launch, clear pilot data, add questionnaires, release slots, edit texts and settings,
#: review paper answers (which show what people wrote about themselves).
MANAGE = "manage"
#: The report, its tables, the release and every export: the participants' answers and
#: what they said about themselves.
DATA = "data"
#: See the participants' records one by one (the admin's participants, ratings, languages, paper
#: copies): what people answered and said about themselves.
PEOPLE = "people"
#: Read the study's record.
RECORD = "record"
#: Add, change and remove members; delete the study.
TEAM = "team"

RIGHTS = {
    OWNER: frozenset({VIEW, MANAGE, PEOPLE, DATA, RECORD, TEAM}),
    MANAGER: frozenset({VIEW, MANAGE, PEOPLE, RECORD}),
    ANALYST: frozenset({VIEW, PEOPLE, DATA}),
    VIEWER: frozenset({VIEW}),
}


def roles_with(right: str) -> list[str]:
    return [role for role, rights in RIGHTS.items() if right in rights]


def studies_for(user, right: str = VIEW) -> QuerySet[Study]:
    """The studies on which `user` has `right`."""
    if user.is_superuser:
        return Study.objects.all()
    return Study.objects.filter(members__user=user, members__role__in=roles_with(right))


def role_of(user, study: Study) -> str | None:
    if user.is_superuser:
        return OWNER
    return StudyMember.objects.filter(user=user, study=study).values_list("role", flat=True).first()


def may(user, study: Study, right: str) -> bool:
    role = role_of(user, study)
    return role is not None and right in RIGHTS[role]


def study_for(request, slug: str, right: str = VIEW) -> Study:
    """The study `slug` if the signed-in researcher may exercise `right` on it: 404 where they
    have no place in it (as for no such study), 403 where their role lacks the right."""
    study = Study.objects.filter(slug=slug).first()
    role = role_of(request.user, study) if study is not None else None
    if role is None:
        raise Http404("no such study")
    if right not in RIGHTS[role]:
        raise PermissionDenied(f"a study's {role} may not do this")
    return study


class TeamError(Exception):
    """A team change that cannot be made; nothing was changed."""


def set_role(study: Study, user, role: str) -> StudyMember:
    """Give `user` the `role` in the study's team (added, or their role changed); recorded."""
    if role not in RIGHTS:
        raise TeamError(f"no role {role!r}: choose one of {', '.join(RIGHTS)}")
    if not user.is_active:
        raise TeamError(f"{user.get_username()!r} cannot sign in (the account is not active)")
    member = StudyMember.objects.filter(study=study, user=user).first()
    before = member.role if member else None
    if before == role:
        return member
    if before == OWNER:
        _keep_an_owner(study, user)
    if member is None:
        member = StudyMember.objects.create(study=study, user=user, role=role)
        record.note(study, "member added", member=user.get_username(), role=role)
    else:
        member.role = role
        member.save(update_fields=["role"])
        record.note(study, "role changed", member=user.get_username(), role=role, before=before)
    return member


def remove_member(study: Study, user) -> None:
    member = StudyMember.objects.filter(study=study, user=user).first()
    if member is None:
        raise TeamError(f"{user.get_username()!r} is not in the team of {study.slug!r}")
    if member.role == OWNER:
        _keep_an_owner(study, user)
    member.delete()
    record.note(study, "member removed", member=user.get_username(), role=member.role)


def _keep_an_owner(study: Study, leaving) -> None:
    if not StudyMember.objects.filter(study=study, role=OWNER).exclude(user=leaving).exists():
        raise TeamError(
            f"{leaving.get_username()!r} is the only owner of {study.slug!r}: "
            "make someone else owner first"
        )


def staff_only(view):
    """Anonymous visitors are sent to log in; signed-in people who are not staff are refused.
    What a staff member may then see is their studies' (`study_for`, `studies_for`)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not (request.user.is_active and request.user.is_staff):
            raise PermissionDenied("the researcher's pages are for staff only")
        with record.acting_as(request.user):
            return view(request, *args, **kwargs)

    return wrapped
