"""The study's data: the WMT sentence pool, permutations, questionnaires, participants, ratings.

Names follow the thesis (McCaffery 2017, ch. 6): a *corpus* is everything one system submitted
for one language pair in one year; a *triple* is (source, reference, hypothesis); an *item* is
what a participant rates — a WMT hypothesis or a permutation of its reference.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from survey import platforms
from wojdb.core import scales, texts
from wojdb.core.language import codes
from wojdb.core.language.codes import LANGUAGE_NAMES
from wojdb.core.texts import en
from wojdb.core.vocabulary import (
    ASSIGNED,
    EDUCATION_LEVELS,
    GENDERS,
    PARTICIPANT_STATUSES,
    PARTICIPATION_MODES,
    PERMUTATION_TYPES,
    ROLES,
    WEB,
)

if TYPE_CHECKING:
    from wojdb.core.design.composition import Layout


class Segment(models.Model):
    """A source sentence and its human reference in one test set (shared by all systems)."""

    testset = models.CharField(max_length=64)
    year = models.PositiveSmallIntegerField()
    source_lang = models.CharField(max_length=8)
    target_lang = models.CharField(max_length=8)
    ref_name = models.CharField(max_length=16, default="A")
    number = models.PositiveIntegerField(
        verbose_name="line", help_text="1-based line number in the test set's text files"
    )
    document = models.CharField(
        max_length=128, blank=True, help_text="the test set's document id; empty where unknown"
    )
    domain = models.CharField(max_length=64, blank=True, help_text="e.g. news; empty where unknown")
    source = models.TextField()
    reference = models.TextField()
    source_length = models.PositiveIntegerField()
    reference_length = models.PositiveIntegerField()
    parse = models.JSONField(null=True, blank=True, help_text="dependency parse of the reference")
    parser = models.CharField(max_length=128, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["testset", "source_lang", "target_lang", "ref_name", "number"],
                name="unique_segment",
            )
        ]
        ordering = ["testset", "source_lang", "number"]

    def __str__(self):
        return f"{self.testset} {self.lp} #{self.number}"

    @property
    def lp(self) -> str:
        return f"{self.source_lang}-{self.target_lang}"

    @property
    def source_language_name(self) -> str:
        return LANGUAGE_NAMES.get(self.source_lang, self.source_lang)


class Corpus(models.Model):
    """All sentences one system submitted for one language pair in one year (thesis §6.1.1)."""

    testset = models.CharField(max_length=64)
    year = models.PositiveSmallIntegerField()
    source_lang = models.CharField(max_length=8)
    target_lang = models.CharField(max_length=8)
    system = models.CharField(max_length=128)

    class Meta:
        verbose_name_plural = "corpora"
        constraints = [
            models.UniqueConstraint(
                fields=["testset", "source_lang", "target_lang", "system"], name="unique_corpus"
            )
        ]
        ordering = ["testset", "source_lang", "system"]

    def __str__(self):
        return f"{self.testset} {self.lp} {self.system}"

    @property
    def lp(self) -> str:
        return f"{self.source_lang}-{self.target_lang}"


class Triple(models.Model):
    """A machine hypothesis with its source and reference, and its WMT human scores."""

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="triples")
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="triples")
    hypothesis = models.TextField()
    hypothesis_length = models.PositiveIntegerField()
    parse = models.JSONField(null=True, blank=True, help_text="dependency parse of the hypothesis")
    parser = models.CharField(max_length=128, blank=True)
    aligned_share = models.FloatField(null=True, blank=True)
    # The truth word marks are compared with (wojdb.core.permutations.truth.crossing_words), set
    # by compute_metrics from the alignment its metrics use; null until then.
    crossing_words = models.JSONField(
        null=True,
        blank=True,
        help_text="0-based positions of the hypothesis's mark units (whitespace words; "
        "characters where the script has no spaces) whose alignment links cross another link",
    )
    crossing_aligner = models.CharField(
        max_length=100, blank=True, help_text="the aligner behind crossing_words"
    )
    # WMT relative ranking turned absolute by eq. 6.1; missing is normal (29.1% in the thesis).
    rank_score = models.FloatField(null=True, blank=True)
    rank_count = models.PositiveIntegerField(default=0)
    # WMT direct assessment: mean raw 0-100 score and mean per-rater z-score.
    da_raw = models.FloatField(null=True, blank=True)
    da_z = models.FloatField(null=True, blank=True)
    da_count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["corpus", "segment"], name="unique_triple")]

    def __str__(self):
        return f"{self.corpus} #{self.segment.number}"

    @property
    def wmt_score(self) -> float | None:
        """The WMT human score on a 0-1 scale: eq. 6.1 where ranked, else DA raw / 100."""
        return scales.wmt_score(self.rank_score, self.da_raw)


class JudgmentImport(models.Model):
    """One imported file of human judgments for one language pair of one test set.

    A file is known by its content (SHA-256) and test set, not its name. The alignment check's
    figures are kept, and whether the user accepted an alignment that failed it.
    """

    SEGMENT, SYSTEM = "segment", "system"
    sha256 = models.CharField(max_length=64)
    file_name = models.CharField(max_length=255)
    file_format = models.CharField(max_length=64, help_text="e.g. WMT DA segment scores")
    testset = models.CharField(max_length=64)
    source_lang = models.CharField(max_length=8)
    target_lang = models.CharField(max_length=8)
    mapping = models.CharField(
        max_length=16, help_text="how segment ids were mapped to lines: documents, lines or none"
    )
    level = models.CharField(
        max_length=8,
        choices=[(SEGMENT, SEGMENT), (SYSTEM, SYSTEM)],
        help_text="system: the segment ids could not be mapped, only system scores were kept",
    )
    kind = models.CharField(
        max_length=24,
        blank=True,
        help_text="direct assessment or error annotation (MQM, ESA), whose alignment checks "
        "differ; empty for system-level results",
    )
    check_n = models.PositiveIntegerField(default=0)
    check_r = models.FloatField(
        null=True, blank=True, help_text="Pearson r of z with chrF, within systems"
    )
    check_mean_z = models.FloatField(null=True, blank=True)
    check_identical_n = models.PositiveIntegerField(default=0)
    check_identical_mean_z = models.FloatField(null=True, blank=True)
    check_passed = models.BooleanField(null=True, help_text="empty where no check was made")
    accepted_unverified = models.BooleanField(
        default=False, help_text="imported with --accept-unverified-alignment despite the check"
    )
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["sha256", "testset", "source_lang", "target_lang"],
                name="unique_judgment_import",
            )
        ]

    def __str__(self):
        return f"{self.file_name} ({self.testset} {self.source_lang}-{self.target_lang})"


class SystemScore(models.Model):
    """WMT's DA results of one system as published at system level only (WMT21's clusters
    file: z, raw, the annotation count as `judgments`, and the significance cluster; the
    segments are not known)."""

    source = models.ForeignKey(JudgmentImport, on_delete=models.CASCADE, related_name="systems")
    testset = models.CharField(max_length=64)
    source_lang = models.CharField(max_length=8)
    target_lang = models.CharField(max_length=8)
    system = models.CharField(max_length=128, help_text="canonical name (wojdb.core.formats.wmt)")
    raw = models.FloatField(help_text="mean of the segments' mean raw scores (0-100)")
    z = models.FloatField(help_text="mean of the segments' mean z-scores")
    n = models.PositiveIntegerField(
        null=True, blank=True, help_text="segments scored; empty where only the judgments are known"
    )
    judgments = models.PositiveIntegerField(help_text="judgments behind them")
    cluster = models.PositiveIntegerField(
        null=True, blank=True, help_text="WMT's significance cluster as published (1 = best)"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "system"], name="unique_system_score")
        ]

    def __str__(self):
        return f"{self.testset} {self.source_lang}-{self.target_lang} {self.system}: {self.z:+.3f}"


class ExternalSegmentScore(models.Model):
    """One row of an imported segment-score file (WMT DA `ad-seg-scores-LP.csv`, and the rows of
    human references in MQM `avg_seg_scores` files, which have no sentences to score): one
    system's mean scores of one segment, as published.

    Every row is kept, linked to its sentence where the segment id maps to one, so that system
    scores are computed from all of them as WMT computes its tables (human references judged
    as systems and segments of unmapped ids included).
    """

    source = models.ForeignKey(
        JudgmentImport, on_delete=models.CASCADE, related_name="segment_scores"
    )
    source_lang = models.CharField(max_length=8)
    target_lang = models.CharField(max_length=8)
    system = models.CharField(max_length=128, help_text="system name as in the file")
    segment_id = models.PositiveIntegerField(
        help_text="SID as published (n of a document-style DOC_n), not a line number"
    )
    document = models.CharField(
        max_length=128, blank=True, help_text="DOC of a document-style SID; empty otherwise"
    )
    triple = models.ForeignKey(
        Triple, null=True, blank=True, on_delete=models.CASCADE, related_name="segment_scores"
    )
    raw = models.FloatField(
        null=True, blank=True, help_text="RAW.SCR: mean raw score, 0-100; empty for MQM"
    )
    z = models.FloatField(
        help_text="Z.SCR: mean rater-standardised score; MQM: the published segment score"
    )
    judgments = models.PositiveIntegerField(
        null=True, blank=True, help_text="N: the judgments averaged; empty where not published"
    )
    line = models.PositiveIntegerField(help_text="the line of the file it comes from")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "line"], name="unique_segment_score_line")
        ]

    def __str__(self):
        return f"{self.system} #{self.segment_id}: {self.z:+.3f}"


class ExternalJudgment(models.Model):
    """One published human judgment by one anonymous rater, kept as published.

    WMT DA (per-rater files): `score` is the rater's z-score; Appraise (DA, DA+SQM, ESA): the
    0-100 score; MQM: minus the sum of the rater's error weights for the segment
    (wojdb.core.formats.mqm.MQM_WEIGHTS; the segment's MQM score is the mean over its raters).
    `source.file_format` says which.
    """

    source_lang = models.CharField(max_length=8)
    target_lang = models.CharField(max_length=8)
    system = models.CharField(max_length=128, help_text="system name as in the judgment file")
    segment_id = models.PositiveIntegerField(
        help_text="segment or item id as published (WMT SID, Appraise itemId, MQM seg_id), "
        "not a line number"
    )
    document = models.CharField(
        max_length=128, blank=True, help_text="document id as published (Appraise, MQM, DOC_n)"
    )
    document_score = models.BooleanField(
        default=False, help_text="a score of the whole document (Appraise isDocScore)"
    )
    triple = models.ForeignKey(
        Triple, null=True, blank=True, on_delete=models.CASCADE, related_name="judgments"
    )
    hit_id = models.CharField(max_length=64, blank=True)
    rater = models.CharField(max_length=64)
    item_type = models.CharField(
        max_length=8, help_text="WMT DA: SYSTEM, REPEAT, BAD_REF, REF; Appraise: TGT, BAD, …; MQM"
    )
    score = models.FloatField(help_text="z (WMT DA), 0-100 (Appraise) or MQM, as above")
    seconds = models.FloatField(null=True, blank=True)
    time_end = models.FloatField(
        null=True,
        blank=True,
        help_text="when the rater finished, in seconds since 1970 as published (Appraise); "
        "of one rater's ratings of an item, WMT24 counts the latest",
    )
    source = models.ForeignKey(
        JudgmentImport,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="judgments",
        help_text="empty for judgments imported before import records were kept",
    )
    source_file = models.CharField(max_length=255)
    line = models.PositiveIntegerField(help_text="the (first) line of the file it comes from")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "line"], name="unique_judgment_line")
        ]

    def __str__(self):
        return f"{self.rater} on {self.system} #{self.segment_id}: {self.score:.3f}"


class ErrorAnnotation(models.Model):
    """One error a rater marked: an MQM error or an ESA span."""

    judgment = models.ForeignKey(ExternalJudgment, on_delete=models.CASCADE, related_name="errors")
    category = models.CharField(
        max_length=128, blank=True, help_text="e.g. Accuracy/Mistranslation"
    )
    severity = models.CharField(max_length=32, help_text="e.g. Major, Minor, Neutral")
    side = models.CharField(
        max_length=8, blank=True, help_text="target or source: the text the span is in"
    )
    start = models.PositiveIntegerField(
        null=True, blank=True, help_text="character offset; empty where no position was marked"
    )
    end = models.PositiveIntegerField(null=True, blank=True)
    span = models.TextField(blank=True, help_text="the marked text (MQM)")
    weight = models.FloatField(null=True, blank=True, help_text="MQM weight (MQM_WEIGHTS)")

    def __str__(self):
        return f"{self.severity} {self.category} [{self.start}, {self.end})"


class Permutation(models.Model):
    """A permuted reference (thesis §6.2.3): a control with a known error type and size."""

    triple = models.ForeignKey(Triple, on_delete=models.CASCADE, related_name="permutations")
    perm_type = models.CharField(max_length=8, choices=[(t, t) for t in PERMUTATION_TYPES])
    degree = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    text = models.TextField()
    tokens = models.JSONField()
    moved = models.JSONField(help_text="0-based reference indices moved or replaced")
    mapping = models.JSONField(help_text="reference position of each output token, -1 if new")
    displaced = models.JSONField(
        null=True,
        blank=True,
        help_text="0-based positions of the output words the algorithm moved or replaced",
    )
    minimal_moves = models.JSONField(
        null=True,
        blank=True,
        help_text="0-based positions of a smallest set of output words whose moving restores "
        "the reference",
    )
    quality = models.FloatField(help_text="eq. 6.2")
    software_version = models.CharField(max_length=32)
    parse = models.JSONField(
        null=True,
        blank=True,
        help_text="dependency parse of the text from an outside parser (import_parses "
        "--permutations); without one, compute_metrics parses it with the language's pipeline",
    )
    parser = models.CharField(max_length=128, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["triple", "perm_type", "degree"], name="unique_permutation"
            )
        ]

    def __str__(self):
        return f"{self.perm_type}/{self.degree} of {self.triple}"


class Item(models.Model):
    """What a participant rates: a WMT hypothesis, or a permutation of its reference."""

    triple = models.ForeignKey(Triple, on_delete=models.CASCADE, related_name="items")
    permutation = models.OneToOneField(
        Permutation, null=True, blank=True, on_delete=models.CASCADE, related_name="item"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["triple"],
                condition=models.Q(permutation__isnull=True),
                name="one_hypothesis_item_per_triple",
            )
        ]

    def __str__(self):
        return f"item {self.pk}: {self.kind} {self.permutation or self.triple}"

    @property
    def kind(self) -> str:
        return "hypothesis" if self.permutation_id is None else "permutation"

    @property
    def text(self) -> str:
        return self.triple.hypothesis if self.permutation is None else self.permutation.text

    @property
    def reference(self) -> str:
        return self.triple.segment.reference

    @property
    def quality(self) -> float | None:
        return self.triple.wmt_score if self.permutation is None else self.permutation.quality


SHARE = [MinValueValidator(0.0), MaxValueValidator(1.0)]
MINUTES_A_YEAR = 366 * 24 * 60
#: The highest permutation degree a study may use: generating up to a huge one ran out of memory.
HIGHEST_DEGREE = 100


def standard_language(code: str) -> None:
    standard = codes.language(code)
    if standard != code:
        hint = f" (write {standard!r})" if standard else ""
        raise ValidationError(f"{code!r} is not an ISO 639 language code in standard form{hint}")


def new_revision() -> int:
    return secrets.randbits(63)  # fits a signed 64-bit column


class StudyQuerySet(models.QuerySet):
    def update(self, **fields):
        fields.setdefault("revision", new_revision())
        return super().update(**fields)


class Study(models.Model):
    """A study's configuration; the thesis's design (Table 6.3, Appendix A) is the default.

    `revision` changes with every write of the row, whether by `save` or by a queryset's
    `update`: the participant pages keep studies in each process's memory and check them
    against it on every request (survey/participants/study_cache.py)."""

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(unique=True)
    items_per_questionnaire = models.PositiveSmallIntegerField(default=50)
    permutation_share = models.FloatField(default=0.5, validators=SHARE)
    shared_share = models.FloatField(default=0.4, validators=SHARE)
    type_counts = models.JSONField(
        default=dict,
        blank=True,
        help_text="permutations per type in shared and unique parts; empty means Table 6.3",
    )
    pairs_share_hypothesis = models.BooleanField(
        default=True, help_text="two permutations of a type are built on the same hypothesis"
    )
    shared_items = models.ManyToManyField(
        Item,
        blank=True,
        related_name="+",
        help_text="the items every questionnaire shares; empty lets the build choose them, "
        "stratified by quality, permutation type and degree, and source language",
    )
    max_degree = models.PositiveSmallIntegerField(
        default=18,
        validators=[MinValueValidator(1), MaxValueValidator(HIGHEST_DEGREE)],
        help_text="the highest permutation degree used (eq. 6.2's maximum; the thesis's 18)",
    )
    sample_item = models.ForeignKey(
        Item, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    language = models.CharField(
        max_length=8,
        default="en",
        validators=[standard_language],
        help_text="ISO 639 code of the target language: the participants' pages are in it, and "
        "a new study's texts default to it where translations exist (French, German)",
    )
    holistic_question = models.TextField(default=en.QUESTIONS["holistic_question"])
    holistic_low = models.CharField(max_length=60, default=en.QUESTIONS["holistic_low"])
    holistic_high = models.CharField(max_length=60, default=en.QUESTIONS["holistic_high"])
    order_question = models.TextField(default=en.QUESTIONS["order_question"])
    order_low = models.CharField(max_length=60, default=en.QUESTIONS["order_low"])
    order_high = models.CharField(max_length=60, default=en.QUESTIONS["order_high"])
    abandon_after_minutes = models.PositiveIntegerField(
        default=120,
        validators=[MinValueValidator(1), MaxValueValidator(MINUTES_A_YEAR)],
        help_text="idle participants are marked abandoned after this many minutes (at most a year)",
    )
    is_open = models.BooleanField(default=True)
    # Set by `launch` (survey/design/lifecycle.py), never by a form or a study file: before it,
    # whoever arrives is a pilot participant and no questionnaire freezes.
    launched_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="when the study was launched: participants before it are pilot participants",
    )
    require_both_answers = models.BooleanField(
        default=True,
        help_text="a participant moves on from a pair only once both questions are answered "
        "(as in the thesis)",
    )
    word_marks = models.BooleanField(
        default=False,
        help_text="each pair also asks which words of the first sentence are out of place "
        "(or that none are)",
    )
    project_title = models.CharField(
        max_length=300,
        blank=True,
        help_text="the title participants read ({project_title} in the texts); empty: the "
        "study's name",
    )
    # What participants read (thesis Appendix A by default); see wojdb/core/texts/__init__.py for
    # the format.
    information_sheet = models.TextField(default=texts.information_sheet)
    consent_intro = models.TextField(default=texts.consent_intro)
    consent_closing = models.TextField(default=texts.consent_closing)
    debriefing = models.TextField(default=texts.debriefing)
    data_use = models.TextField(
        default=texts.data_use_default,
        help_text="what happens to the data ({data_use} in the texts; also on the withdrawal page)",
    )
    # Feedback on the practice pair; empty ones are written from the practice item itself.
    sample_holistic_note = models.TextField(
        blank=True, help_text="feedback on the first question for the practice pair"
    )
    sample_order_note = models.TextField(
        blank=True, help_text="feedback on the second question for the practice pair"
    )
    researcher_name = models.CharField(max_length=200, blank=True)
    researcher_email = models.EmailField(blank=True)
    supervisor_name = models.CharField(max_length=200, blank=True)
    supervisor_email = models.EmailField(blank=True)
    institution = models.CharField(
        max_length=300, blank=True, help_text="who runs the study, e.g. a school and university"
    )
    duration = models.CharField(
        max_length=100, blank=True, help_text="how long taking part takes, e.g. about 30 minutes"
    )
    reward = models.CharField(
        max_length=300, blank=True, help_text="what participants receive, in a full sentence"
    )
    results_date = models.CharField(
        max_length=100, blank=True, help_text="when the results will be written up"
    )
    ethics_contact = models.CharField(
        max_length=500,
        blank=True,
        help_text="where participants can raise concerns: an ethics committee's address",
    )
    instructions = models.TextField(
        default=texts.instructions, help_text="shown before the practice pair"
    )
    # The crowd platforms are plug-ins (survey/platforms/): their registry gives the choices,
    # read when asked, and checks each platform's settings.
    platform = models.CharField(max_length=8, choices=platforms.choices, default="none")
    platform_settings = models.JSONField(
        default=dict,
        blank=True,
        validators=[platforms.check_settings],
        help_text="the crowd platforms' own settings, a table for each platform by its name "
        "(docs/crowd-platforms.md)",
    )
    completion_code = models.CharField(
        max_length=32,
        blank=True,
        help_text="Prolific: the study's completion code, as set on Prolific; empty gives each "
        "participant their own code",
    )
    decline_code = models.CharField(
        max_length=32,
        blank=True,
        help_text="Prolific: a completion code for people who decline or withdraw (set on "
        "Prolific to return the submission); empty tells them to return the study themselves",
    )
    allow_repeats = models.BooleanField(
        default=False,
        help_text="a person whose platform id has taken part may take part again, as a new "
        "participant (for a design that wants repeats); off, one person takes part once",
    )
    min_answered_pairs = models.PositiveSmallIntegerField(
        default=0, help_text="participants who answered fewer pairs get no completion code"
    )
    platform_return_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="generic platform: where participants go once finished; {code} is replaced "
        "by their completion code",
    )
    created = models.DateTimeField(auto_now_add=True)
    revision = models.BigIntegerField(
        default=new_revision, editable=False, help_text="a new random number at every write"
    )

    objects = StudyQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "studies"
        # Django writes the row through the base manager too (a deleted practice item's NULL),
        # and such a write must change the revision as well.
        base_manager_name = "objects"

    def __str__(self):
        return self.name

    def save(self, *args, update_fields=None, **kwargs):
        # One form of every text, whichever way it came (admin, form, study file, shell).
        for field in self._meta.concrete_fields:
            value = getattr(self, field.attname)
            if isinstance(field, models.CharField | models.TextField) and isinstance(value, str):
                setattr(self, field.attname, texts.normalise_line_ends(value))
        if update_fields is None or update_fields:  # an empty list writes nothing
            self.revision = new_revision()
            update_fields = update_fields and {*update_fields, "revision"}
        super().save(*args, update_fields=update_fields, **kwargs)

    @property
    def title(self) -> str:
        """The title participants read."""
        return texts.project_title(self)

    @property
    def launched(self) -> bool:
        return self.launched_at is not None

    def clean(self):
        if found := texts.problems(self):
            raise ValidationError(found)
        from wojdb.core.design.composition import ConfigurationError

        try:
            self.layout()
        except ConfigurationError as e:
            raise ValidationError(f"These numbers cannot describe a questionnaire: {e}") from None

    def take_language_defaults(self, given=()) -> None:
        """Give a new study the texts of its language: each participant text, question and
        scale label not in `given` (the fields its creator wrote) becomes the language's
        default (wojdb/core/texts/__init__.py; English where there is no translation)."""
        for name, text in texts.study_defaults(self.language).items():
            if name not in given:
                setattr(self, name, text)

    @property
    def language_name(self) -> str:
        """The target language's English name (or its code)."""
        return LANGUAGE_NAMES.get(self.language, self.language)

    def unfilled(self) -> list[str]:
        """What keeps the study link closed to newcomers whatever `is_open` says: settings its
        texts name that are empty (see texts.unfilled), a missing practice pair (everyone
        has one before pair 1), and what its crowd platform still needs (on Prolific its completion
        code, which releases leave out). Not a validation error: a study is set up before these
        are, and an imported release holds none of the codes."""
        missing = texts.unfilled(self)
        if not self.sample_item_id:
            missing.append("sample_item (the practice pair)")
        missing.extend(platforms.of(self).missing(self))
        return missing

    def layout(self) -> Layout:
        """Table 6.3 for this study's numbers; raises composition.ConfigurationError."""
        # Composing loads with the commands and pages that compose, not with the models.
        from wojdb.core.design.composition import make_layout

        return make_layout(
            self.items_per_questionnaire,
            self.permutation_share,
            self.shared_share,
            self.type_counts or None,
            self.pairs_share_hypothesis,
            known_types=PERMUTATION_TYPES,
        )


class StudyPlan(models.Model):
    """What a study file declares beside the study's settings (survey/design/plan.py): its
    sources (paths absolute), how its pool is drawn, and how its permutations and questionnaires
    are made, each the file's table with its defaults written out. Kept so that `study_config`
    writes the whole file back and a new build of the file can tell what changed."""

    study = models.OneToOneField(Study, on_delete=models.CASCADE, related_name="plan")
    sources = models.JSONField(default=dict, blank=True)
    pool = models.JSONField(null=True, blank=True)
    permutations = models.JSONField(null=True, blank=True)
    questionnaires = models.JSONField(null=True, blank=True)

    def __str__(self):
        return f"plan of {self.study}"


class PoolEntry(models.Model):
    """A triple of a study's sentence pool (thesis §6.2.3): each study draws its own
    (survey.design.sentence_pool.sample_pool), and its questionnaires are composed from it."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="pool_entries")
    triple = models.ForeignKey(Triple, on_delete=models.CASCADE, related_name="pool_entries")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "triple"], name="unique_pool_entry")
        ]
        verbose_name_plural = "pool entries"

    def __str__(self):
        return f"{self.triple} in the pool of {self.study}"


class ConsentText(models.Model):
    """A version of the consent statements; participants record the version they accepted."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="consent_texts")
    version = models.PositiveIntegerField()
    statements = models.JSONField(help_text="list of statements a participant answers")
    optional = models.JSONField(
        default=list,
        blank=True,
        help_text="numbers (from 1) of the statements a participant may answer No to",
    )
    sharing = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="number of the statement agreeing to the data's release; a Yes sets share_data",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "version"], name="unique_consent_version")
        ]
        ordering = ["study", "-version"]

    def __str__(self):
        return f"{self.study} consent v{self.version}"

    def clean(self):
        """The statements, `optional` and `sharing` by the study file's rule for them; and a
        saved version never changes, as participants recorded the version they accepted."""
        from wojdb.core.study_file import CONSENT, StudyFileError, Where

        given = {"version": self.version, "statements": self.statements, "optional": self.optional}
        given |= {} if self.sharing is None else {"sharing": self.sharing}
        try:
            CONSENT.check(given, Where("consent text", ""))
        except StudyFileError as e:
            if not e.key:
                raise ValidationError(e.problem) from None
            field = e.key.split("[")[0]
            shown = e.problem if e.key == field else f"{e.key}: {e.problem}"
            raise ValidationError({field: shown}) from None
        saved = ConsentText.objects.filter(pk=self.pk).values(*given, "sharing").first()
        if saved and saved != given | {"sharing": self.sharing}:
            raise ValidationError(
                f"Consent version {saved['version']} is saved, and participants record the "
                "version they accepted: add a new version instead of changing this one."
            )

    def is_recorded(self) -> bool:
        """Whether a participant accepted this version or a paper copy printed it."""
        return (
            self.study.participants.filter(consent_version=self.version).exists()
            or self.study.paper_layouts.filter(consent_version=self.version).exists()
        )


class Questionnaire(models.Model):
    """A fixed list of items in a fixed order; frozen once a participant starts it."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="questionnaires")
    number = models.PositiveIntegerField()
    version = models.PositiveIntegerField(default=1)
    seed = models.BigIntegerField()
    software_version = models.CharField(max_length=32)
    frozen = models.BooleanField(default=False)
    active = models.BooleanField(default=True, help_text="offered to new participants")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["study", "number", "version"], name="unique_questionnaire_version"
            )
        ]
        ordering = ["study", "number", "version"]

    def __str__(self):
        return f"{self.study} Q{self.number} v{self.version}"


class QuestionnaireEntry(models.Model):
    questionnaire = models.ForeignKey(
        Questionnaire, on_delete=models.CASCADE, related_name="entries"
    )
    position = models.PositiveSmallIntegerField(help_text="1-based position shown to participants")
    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="entries")
    shared = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["questionnaire", "position"], name="unique_position"),
            models.UniqueConstraint(fields=["questionnaire", "item"], name="unique_entry_item"),
        ]
        ordering = ["questionnaire", "position"]
        verbose_name_plural = "questionnaire entries"

    def __str__(self):
        return f"{self.questionnaire} #{self.position}"


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 random bits


def real_participants(path: str = "") -> models.Q:
    """The people whose answers are the study's data: neither simulated nor pilot ones (who
    came before the study's launch); `path` leads to the participant, e.g. "participant__"."""
    return models.Q(**{f"{path}simulated": False, f"{path}pilot": False})


class ParticipantQuerySet(models.QuerySet):
    def real(self):
        return self.filter(real_participants())


class Participant(models.Model):
    STATUSES = [(s, s) for s in PARTICIPANT_STATUSES]
    GENDERS = [(key, _(en.GENDER_LABELS[key])) for key in GENDERS]
    EDUCATION = [(key, _(en.EDUCATION_LABELS[key])) for key in EDUCATION_LEVELS]
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants")
    # Indexed by `participant_load`, which it begins: a participant's every move writes each of
    # their indexes, so none is kept that another covers or that nothing reads.
    questionnaire = models.ForeignKey(
        Questionnaire, on_delete=models.PROTECT, related_name="participants", db_index=False
    )
    token = models.CharField(max_length=64, default=new_token, editable=False)
    status = models.CharField(max_length=12, choices=STATUSES, default=ASSIGNED)
    simulated = models.BooleanField(default=False)
    pilot = models.BooleanField(
        default=False,
        help_text="came before the study was launched: kept apart from its data, and "
        "freezes no questionnaire",
    )
    mode = models.CharField(
        max_length=5,
        choices=[(m, m) for m in PARTICIPATION_MODES],
        default=WEB,
        help_text="answered in the browser or on a printed questionnaire",
    )
    created = models.DateTimeField(auto_now_add=True)
    last_activity = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    completion_code = models.CharField(max_length=32, blank=True)
    consent_version = models.PositiveIntegerField(null=True, blank=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    share_data = models.BooleanField(default=False, help_text="consented to data sharing")
    # About you (thesis Appendix A); every field optional.
    target_first = models.BooleanField(
        null=True, blank=True, help_text="the study's language is a first language"
    )
    target_years = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="years of speaking the study's language fluently"
    )
    gender = models.CharField(max_length=8, choices=GENDERS, blank=True)
    nationality = models.CharField(max_length=100, blank=True)
    education = models.CharField(max_length=16, choices=EDUCATION, blank=True)
    reading_disability = models.CharField(max_length=300, blank=True)
    grammar_attention = models.PositiveSmallIntegerField(null=True, blank=True)
    age = models.PositiveSmallIntegerField(null=True, blank=True)
    reading_mode = models.BooleanField(default=False, help_text="larger, more widely spaced text")
    about_done = models.BooleanField(default=False, help_text="the about-you page was submitted")
    position = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="where the participant is: 0 the sample, 1-n the pairs, n+1 the final check",
    )
    furthest = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="the furthest position reached; the link resumes there"
    )

    objects = ParticipantQuerySet.as_manager()

    class Meta:
        # Each questionnaire's participants of a kind, by status, as joins count them once a
        # minute (survey/participants/assignment.py). Not the time of their last activity, which
        # every move writes: in the index, each write added an entry (PostgreSQL keeps the old
        # one until a vacuum), and at 5,000 participants moved 15 times each the count read
        # 115 pages of it in 12-16 ms, against 10 pages in 2.5-4 ms without; on SQLite, which
        # then reads the time from the row, 2.0 ms against 1.2 ms.
        indexes = [
            models.Index(
                fields=["questionnaire", "pilot", "simulated", "status"],
                name="participant_load",
            )
        ]
        # A constraint rather than `unique=True`, which on PostgreSQL adds a second index for
        # LIKE searches no one makes.
        constraints = [models.UniqueConstraint(fields=["token"], name="participant_token")]

    def __str__(self):
        return f"participant {self.pk} ({self.status})"

    @property
    def languages_score(self) -> int:
        """Language knowledge, the study's language included: native 7 … a few words 1 point,
        summed."""
        return sum(lang.fluency for lang in self.languages.all())


class PlatformIdentity(models.Model):
    """Crowd-platform ids, kept apart from answers and never exported."""

    participant = models.OneToOneField(
        Participant, on_delete=models.CASCADE, related_name="platform"
    )
    prolific_pid = models.CharField(max_length=64, blank=True)
    study_id = models.CharField(max_length=64, blank=True)
    session_id = models.CharField(max_length=64, blank=True)
    pid = models.CharField(max_length=64, blank=True)
    return_url = models.URLField(blank=True)
    # MTurk's external-question parameters.
    worker_id = models.CharField(max_length=64, blank=True)
    assignment_id = models.CharField(max_length=64, blank=True)
    hit_id = models.CharField(max_length=64, blank=True)
    submit_to = models.URLField(blank=True, help_text="MTurk's turkSubmitTo")

    class Meta:
        verbose_name_plural = "platform identities"

    def __str__(self):
        return f"platform ids of participant {self.participant_id}"


class ParticipantLanguage(models.Model):
    FLUENCY = [
        # The thesis fixes native = 7, fluent = 4, a few words = 1 (§6.3.5); the steps between
        # are this scale's own.
        (7, _("Native")),
        (6, _("Near-native")),
        (5, _("Advanced")),
        (4, _("Fluent")),
        (3, _("Conversational")),
        (2, _("Basic")),
        (1, _("A few words")),
    ]
    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="languages")
    language = models.CharField(max_length=100)
    fluency = models.PositiveSmallIntegerField(choices=FLUENCY)
    qualifications = models.CharField(max_length=300, blank=True)

    def __str__(self):
        return f"{self.language} ({self.get_fluency_display()})"


class DeclinedConsent(models.Model):
    """Only a count: a person who declines leaves nothing else behind."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="declines")
    pilot = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"declined {self.created:%Y-%m-%d}"


class Withdrawal(models.Model):
    """Only a count: a person who withdraws leaves nothing else behind."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="withdrawals")
    simulated = models.BooleanField(default=False)
    pilot = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"withdrew {self.created:%Y-%m-%d}"


class QuestionnaireLoad(models.Model):
    """How many participants of one kind (real, pilot or simulated) hold a questionnaire
    version (completed, or assigned or in progress and not idle), as a join reads it
    (survey/participants/assignment.py): counted afresh at most a minute before, plus the
    joins since. A cache, which `forget` drops where participants are deleted: the next join
    counts them again."""

    # Indexed by `unique_questionnaire_load`, which it begins.
    questionnaire = models.ForeignKey(
        Questionnaire, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    pilot = models.BooleanField()
    simulated = models.BooleanField()
    holding = models.PositiveIntegerField()
    counted = models.DateTimeField(help_text="when the count was last made afresh")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["questionnaire", "pilot", "simulated"], name="unique_questionnaire_load"
            )
        ]

    def __str__(self):
        return f"{self.questionnaire}: {self.holding} holding"

    @classmethod
    def forget(cls, study: Study) -> None:
        cls.objects.filter(questionnaire__study=study).delete()


class EntryCount(models.Model):
    """Requests to study links from one client address in one window of the rate limit
    (survey/participants/middleware.py), counted in the database so that every app server counts
    them together."""

    address = models.CharField(max_length=64)
    window = models.BigIntegerField(help_text="the window's start, in seconds since 1970")
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["address", "window"], name="unique_entry_count")
        ]

    def __str__(self):
        return f"{self.address}: {self.count} from {self.window}"


class Rating(models.Model):
    """A participant's answers for one item, stored raw (1-5) as given."""

    # Indexed by `unique_rating`, which it begins.
    participant = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="ratings", db_index=False
    )
    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="ratings")
    position = models.PositiveSmallIntegerField(help_text="0 for the practice sample")
    practice = models.BooleanField(default=False)
    holistic = models.PositiveSmallIntegerField(null=True, blank=True)
    order = models.PositiveSmallIntegerField(null=True, blank=True)
    shown_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    client_ms = models.PositiveIntegerField(null=True, blank=True)
    revisions = models.PositiveSmallIntegerField(default=0)
    # Studies with `word_marks`: null until answered; [] when the participant said no word is
    # out of place; else one [word index from 0, the word as shown, ISO time it was marked] a word.
    marks = models.JSONField(
        null=True, blank=True, help_text="the words marked out of place: [index, word, time]"
    )
    flagged = models.BooleanField(default=False, help_text="the participant flagged the pair")
    comment = models.CharField(max_length=500, blank=True, help_text="the participant's note")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["participant", "item"], name="unique_rating"),
            models.CheckConstraint(
                condition=models.Q(holistic__isnull=True)
                | models.Q(holistic__gte=1, holistic__lte=5),
                name="holistic_1_to_5",
            ),
            models.CheckConstraint(
                condition=models.Q(order__isnull=True) | models.Q(order__gte=1, order__lte=5),
                name="order_1_to_5",
            ),
        ]
        ordering = ["participant", "position"]

    def __str__(self):
        return f"participant {self.participant_id}, position {self.position}"


class PaperLayout(models.Model):
    """One print run of a questionnaire: the layout.json of its copies
    (wojdb/core/paper/layout.py)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="paper_layouts")
    questionnaire = models.ForeignKey(
        Questionnaire, on_delete=models.PROTECT, related_name="paper_layouts"
    )
    layout = models.JSONField()
    consent_version = models.PositiveIntegerField(help_text="the consent statements printed")
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.questionnaire} printed {self.created:%Y-%m-%d}"


class PaperCopy(models.Model):
    """A printed copy handed out; its code is on every page. Once all its pages are scanned,
    its answers become one paper participant."""

    code = models.CharField(max_length=16, unique=True)
    layout = models.ForeignKey(PaperLayout, on_delete=models.CASCADE, related_name="copies")
    participant = models.OneToOneField(
        Participant, null=True, blank=True, on_delete=models.SET_NULL, related_name="paper_copy"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "paper copies"

    def __str__(self):
        return f"copy {self.code}"


class ScanPage(models.Model):
    """A scanned page, registered onto the layout's raster and kept as the evidence for its
    answers, with what was read from it."""

    copy = models.ForeignKey(PaperCopy, on_delete=models.CASCADE, related_name="pages")
    page = models.PositiveSmallIntegerField(help_text="1-based within the copy")
    image = models.BinaryField(help_text="the registered page, grey JPEG at 150 dpi")
    source = models.CharField(max_length=300, help_text="file and page it was read from")
    boxes = models.JSONField(help_text="every box read: field, value, coverage, state")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["copy", "page"], name="unique_scan_page")]
        ordering = ["copy", "page"]

    def __str__(self):
        return f"{self.copy} page {self.page}"


class PaperAnswer(models.Model):
    """An answer a person has to look at: a flagged box question or a write-in area."""

    STATUSES = [
        ("pending", "to review"),
        ("blank", "looks blank"),
        ("resolved", "decided by a researcher"),
    ]
    copy = models.ForeignKey(PaperCopy, on_delete=models.CASCADE, related_name="answers")
    page = models.PositiveSmallIntegerField()
    field = models.CharField(max_length=64)
    kind = models.CharField(max_length=4, choices=[("box", "box"), ("text", "text")])
    reason = models.CharField(max_length=200, blank=True)
    crop = models.BinaryField(help_text="PNG of the question's area on the scan")
    status = models.CharField(max_length=8, choices=STATUSES, default="pending", db_index=True)
    value = models.CharField(max_length=300, blank=True, help_text="as decided or typed")
    reviewed_by = models.CharField(max_length=150, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["copy", "field"], name="unique_paper_answer")
        ]
        ordering = ["copy", "page", "id"]

    def __str__(self):
        return f"{self.copy} {self.field} ({self.status})"


class StudyMember(models.Model):
    """A researcher in a study's team, with one role: what they may see and do in it is the
    role's (survey/access.py). Superusers need no place in a team."""

    ROLES = [(role, role.capitalize()) for role in ROLES]
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_roles"
    )
    role = models.CharField(max_length=8, choices=ROLES)
    added = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "user"], name="one_role_per_member")
        ]
        ordering = ["study", "user__username"]

    def __str__(self):
        return f"{self.user} ({self.role} of {self.study.slug})"


class RecordQuerySet(models.QuerySet):
    """The record is appended to, never rewritten: no update or delete through a queryset."""

    def update(self, **kwargs):
        raise TypeError("a study's record is append-only")

    def delete(self):
        raise TypeError("a study's record is append-only")


class StudyEvent(models.Model):
    """One entry of a study's record: who did what, and when (survey/record.py writes them).
    Append-only, and kept when the study is deleted: the slug stays with each entry. It never
    holds a participant's personal data."""

    study = models.ForeignKey(
        Study, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )
    study_slug = models.SlugField(db_index=True)
    at = models.DateTimeField(default=timezone.now)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    actor = models.CharField(
        max_length=200, help_text="the user's name, or the command and the server's operator"
    )
    action = models.CharField(max_length=40, db_index=True)
    details = models.JSONField(default=dict, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["at", "id"]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {self.study_slug}: {self.action} by {self.actor}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError("a study's record is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("a study's record is append-only")
