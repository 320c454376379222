"""Who may see the dashboards: logged-in staff. Anonymous visitors are sent to the login page; a
logged-in user who is not staff gets 403 (logging in again would not help them)."""
from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied


def is_staff(user) -> bool:
    """The one test for pages and websockets alike."""
    return bool(user is not None and user.is_authenticated and user.is_active and user.is_staff)


def staff_required(view):
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_staff(request.user):
            raise PermissionDenied("these pages are for staff")
        return view(request, *args, **kwargs)

    return wrapped
