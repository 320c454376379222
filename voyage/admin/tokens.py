"""API tokens in the admin: made here, shown once (in the message after saving), stored only as a
SHA-256 digest, revocable. The token acts as its user, who must be staff."""
from __future__ import annotations

from django.contrib import admin, messages
from django.utils import timezone

from voyage.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "hint", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    fields = ("name", "user", "revoked_at")
    actions = ["revoke"]

    def get_readonly_fields(self, request, obj=None):
        return ("user",) if obj else ()

    def get_changeform_initial_data(self, request):
        return {"user": request.user.pk}

    def save_model(self, request, obj, form, change):
        if not change:
            token = obj.issue()
            super().save_model(request, obj, form, change)
            self.message_user(request, f"The token for “{obj.name}” is {token} — copy it now: it is not stored "
                                       f"and will not be shown again. Send it as the X-API-Key header.", messages.WARNING)
            return
        super().save_model(request, obj, form, change)

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request, queryset):
        done = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"revoked {done} token(s)", messages.SUCCESS)
