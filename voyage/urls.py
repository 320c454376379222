from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from voyage.admin.drafts import draft_job_view, draft_view
from voyage.api.site import api

urlpatterns = [
    path("api/", api.urls),  # the API (voyage/api): /api/, schema at /api/openapi.json, docs at /api/docs
    # the admin's "Draft a world" (voyage/admin/drafts.py), beside the scenario admin it installs into
    path("admin/world/scenario/draft/", admin.site.admin_view(draft_view), name="scenario_draft"),
    path("admin/world/scenario/draft/<int:job_id>/", admin.site.admin_view(draft_job_view), name="scenario_draft_job"),
    path("admin/", admin.site.urls),
    # Browsers ask every site for /favicon.ico (the admin and the API docs name no icon of their own).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("voyage.web.urls")),
    path("studies/", include("voyage.web.studies_urls")),
]
