from django.apps import AppConfig


def forget_withdrawn(sender, pk: int, **kwargs) -> None:
    """Take a withdrawn participant out of the stored report (loaded here, not at start-up)."""
    from analysis.report_files import forget_withdrawn

    forget_withdrawn(sender, pk, **kwargs)


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = "Analysis: metric scores"

    def ready(self):
        from survey.participants.participation import participant_withdrawn

        participant_withdrawn.connect(forget_withdrawn, dispatch_uid="analysis.forget_withdrawn")
