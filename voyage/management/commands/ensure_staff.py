"""Make sure a staff login exists for the dashboards and the admin; print it as one JSON line.

The user name comes from VOYAGE_STAFF_USER (default "staff") and the password from
VOYAGE_STAFF_PASSWORD; without it a new password is generated (and printed: it is shown nowhere
else). The user is made staff and superuser, so the admin link works too."""
from __future__ import annotations

import json
import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Create or update the staff login (VOYAGE_STAFF_USER / VOYAGE_STAFF_PASSWORD) and print it."

    def handle(self, *args, **options):
        username = os.environ.get("VOYAGE_STAFF_USER", "staff").strip()
        if not username:
            raise CommandError("VOYAGE_STAFF_USER is empty: give a user name")
        given = os.environ.get("VOYAGE_STAFF_PASSWORD", "")
        password = given or secrets.token_urlsafe(12)
        user, created = get_user_model().objects.get_or_create(username=username)
        user.is_staff = user.is_superuser = user.is_active = True
        user.set_password(password)
        user.save()
        self.stdout.write(json.dumps({
            "username": username,
            "password": None if given else password,
            "password_from": "VOYAGE_STAFF_PASSWORD" if given else "generated",
            "created": created,
        }))
