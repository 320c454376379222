import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "voyage.settings")
application = get_wsgi_application()

from voyage.web.heap import freeze_startup_heap  # noqa: E402  (after Django is set up)

freeze_startup_heap()  # full collections then skip what lives as long as the process
