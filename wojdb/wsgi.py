import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
application = get_wsgi_application()

from wojdb.serving import prepare  # noqa: E402 - needs the settings configured above

prepare()
