"""The one guard of the researcher pages (dashboard, report, paper review, release download)."""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied


def staff_only(view):
    """Anonymous visitors are sent to log in; signed-in people who are not staff are refused."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not (request.user.is_active and request.user.is_staff):
            raise PermissionDenied("the researcher's pages are for staff only")
        return view(request, *args, **kwargs)

    return wrapped
