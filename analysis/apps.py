from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = "Analysis: metric scores"

    def ready(self):
        from analysis.report_files import forget_withdrawn
        from survey.participation import participant_withdrawn

        participant_withdrawn.connect(forget_withdrawn, dispatch_uid="analysis.forget_withdrawn")
