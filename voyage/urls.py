from django.contrib import admin
from django.urls import include, path

urlpatterns = [path("admin/", admin.site.urls)]
urlpatterns += [path("", include("voyage.web.inspect_urls"))]  # room transcripts, agent inspector, pictures
