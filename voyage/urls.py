from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("admin/", admin.site.urls),
    # Browsers ask every site for /favicon.ico (the admin and the API docs name no icon of their own).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("voyage.web.urls")),
    path("studies/", include("voyage.studies.urls")),
]

# The API (voyage/api): /api/, schema at /api/openapi.json, docs at /api/docs.
from voyage.api.site import api  # noqa: E402

urlpatterns.insert(0, path("api/", api.urls))
