"""Websocket routes (see voyage/web/consumers.py)."""
from django.urls import path

from voyage.web.consumers import RunFeedConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/feed/", RunFeedConsumer.as_asgi()),
]
