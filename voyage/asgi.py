"""The web process (daphne): pages, admin and API over HTTP, the live feeds over websockets.

Static files are served by Django's own ASGIStaticFilesHandler, straight from the finders (the
`static/` folder and the apps' static folders), so `make demo` needs no collectstatic step and no
extra dependency. It is the handler `runserver` uses: fine for a staff tool on a few users; behind
a public site put a web server (or whitenoise) in front of STATIC_ROOT instead.
"""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "voyage.settings")
django_http = get_asgi_application()  # sets Django up before anything imports models

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from voyage.routing import websocket_urlpatterns  # noqa: E402
from voyage.web.heap import freeze_startup_heap  # noqa: E402

application = ProtocolTypeRouter({
    "http": ASGIStaticFilesHandler(django_http),
    "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
})
freeze_startup_heap()  # full collections then skip what lives as long as the process (voyage/web/heap.py)
