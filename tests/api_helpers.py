"""Shared set-up for the API tests: a staff member with a token, an outsider, a small run."""
from __future__ import annotations

from django.contrib.auth.models import User

from voyage.models import ApiToken


def staff_with_token(username: str = "api-staff") -> tuple[User, str]:
    user = User.objects.create_user(username, password="pw", is_staff=True)
    token = ApiToken(name="tests", user=user)
    secret = token.issue()
    token.save()
    return user, secret
