"""Automatic scores for rated items: built-in metrics and scores imported from WMT files."""

from django.db import models

from survey.models import Item, Triple


class Metric(models.Model):
    """One configuration of a metric (e.g. DTED 'fco' with the spaCy parser and the aligner)."""

    name = models.CharField(max_length=100)
    variant = models.CharField(max_length=200, blank=True, default="")
    config = models.CharField(
        max_length=200, blank=True, default="", help_text="third-party tools: parser, aligner"
    )
    version = models.CharField(max_length=100, blank=True)
    higher_is_better = models.BooleanField(default=True)
    builtin = models.BooleanField(default=False)
    description = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["name", "variant", "config"], name="unique_metric_configuration"
            )
        ]
        ordering = ["name", "variant"]

    def __str__(self):
        details = ", ".join(filter(None, [self.variant, self.config]))
        return f"{self.name} [{details}]" if details else self.name


class MetricScore(models.Model):
    metric = models.ForeignKey(Metric, on_delete=models.CASCADE, related_name="scores")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="scores")
    score = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["metric", "item"], name="unique_metric_score")
        ]

    def __str__(self):
        return f"{self.metric} = {self.score:.4f} for item {self.item_id}"


class Alignment(models.Model):
    """A word alignment of a hypothesis to its reference, from an aligner (`i-j` pairs)."""

    triple = models.ForeignKey(Triple, on_delete=models.CASCADE, related_name="alignments")
    aligner = models.CharField(max_length=100)
    pairs = models.JSONField(help_text="list of [hypothesis index, reference index], 0-based")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["triple", "aligner"], name="unique_alignment")
        ]

    def __str__(self):
        return f"{self.aligner} alignment of {self.triple_id}"
