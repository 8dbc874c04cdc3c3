import gc

from django.apps import AppConfig
from django.conf import settings


class SurveyConfig(AppConfig):
    """Django's start-up loads the apps' models and admin modules once the settings are read:
    some 60,000 objects that live as long as the process. The garbage collector is paused
    meanwhile (from wojdb/settings.py, else from this config's creation), as its passes would
    find next to nothing to free (about 1,500 objects, left to app servers: wojdb/serving.py),
    and what was made is frozen out of its full passes, the three at exit among them. Those
    passes were a quarter of a command's start-up, and the young passes over the admin's and
    the other apps' imports 3% of `manage.py check` (bench/startup_bench.py)."""

    name = "survey"
    verbose_name = "Survey: sentence pool, questionnaires and participants"

    def __init__(self, app_name, app_module):
        super().__init__(app_name, app_module)
        self.collecting = getattr(settings, "COLLECTING_AT_START", gc.isenabled())
        gc.disable()

    def ready(self):
        from survey import checks  # noqa: F401  (registers the checks)

        gc.freeze()
        if self.collecting:
            gc.enable()
