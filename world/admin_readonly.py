"""The admin's read-only lists: what happened (memory, events, model calls, live agent state) is
inspected, never edited. No add, change or delete for any user, superusers included: a POST to
change or delete is refused (403) and the row stays as it was."""
from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    list_per_page = 50
    show_full_result_count = False  # counting a long stream on every page is slow

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
