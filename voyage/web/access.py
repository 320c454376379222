"""Who may see the dashboards: staff only (anonymous users go to the login page)."""
from django.contrib.auth.decorators import user_passes_test

staff_required = user_passes_test(lambda u: u.is_active and u.is_staff)
