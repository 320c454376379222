"""Who may use the API: a staff member's session (unsafe methods need the CSRF token), or an API
token in the X-API-Key header (made in the admin, stored as a SHA-256 digest, revocable). Anyone
else gets 401, whatever they ask for: the CSRF check only runs once a staff session is known, so
an anonymous POST is a 401 too, never a 403."""
from __future__ import annotations

from django.conf import settings
from django.utils import timezone
from ninja.errors import HttpError
from ninja.security import APIKeyCookie, APIKeyHeader
from ninja.utils import check_csrf

from voyage.models import ApiToken


def staff(user) -> bool:
    return bool(user and user.is_active and user.is_staff)


class TokenAuth(APIKeyHeader):
    param_name = "X-API-Key"

    def authenticate(self, request, key):
        if not key or not key.startswith(ApiToken.PREFIX) or len(key) > 200:
            return None
        token = (ApiToken.objects.select_related("user")
                 .filter(digest=ApiToken.digest_of(key), revoked_at__isnull=True).first())
        if token is None or not staff(token.user):
            return None
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
        return token.user


class StaffSession(APIKeyCookie):
    param_name = settings.SESSION_COOKIE_NAME

    def __call__(self, request):
        user = getattr(request, "user", None)
        if not staff(user):
            return None
        if self.csrf and check_csrf(request):
            raise HttpError(403, "CSRF check failed: send the csrftoken cookie's value as X-CSRFToken")
        return user

    def authenticate(self, request, key):  # (the session middleware has authenticated already)
        return request.user if staff(request.user) else None


AUTH = [TokenAuth(), StaffSession()]
