import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
application = get_asgi_application()

from wojdb.serving import prepare  # noqa: E402 - needs the settings configured above

prepare()
