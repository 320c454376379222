"""Websocket routes (see voyage/consumers.py)."""
from django.urls import path

from voyage.consumers import RunFeedConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/feed/", RunFeedConsumer.as_asgi()),
]
