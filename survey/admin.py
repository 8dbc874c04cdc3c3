from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import URLField
from django.forms.models import BaseInlineFormSet
from django.template.loader import render_to_string
from django.utils.html import format_html, format_html_join

from survey import models, platforms
from survey.design.questionnaires import is_frozen
from survey.participants import participation
from wojdb.core import texts


@admin.register(models.Segment)
class SegmentAdmin(admin.ModelAdmin):
    list_display = ["testset", "lp", "number", "reference", "reference_length", "parser"]
    list_filter = ["testset", "source_lang", "ref_name"]
    search_fields = ["reference", "source"]
    readonly_fields = ["parse"]


@admin.register(models.Corpus)
class CorpusAdmin(admin.ModelAdmin):
    list_display = ["testset", "year", "lp", "system"]
    list_filter = ["year", "source_lang", "testset"]
    search_fields = ["system"]


@admin.register(models.Triple)
class TripleAdmin(admin.ModelAdmin):
    list_display = ["__str__", "hypothesis", "hypothesis_length", "rank_score", "da_raw"]
    list_filter = ["pool_entries__study", "corpus__source_lang", "corpus__system"]
    search_fields = ["hypothesis", "segment__reference"]
    list_select_related = ["corpus", "segment"]
    raw_id_fields = ["corpus", "segment"]
    readonly_fields = ["parse"]


@admin.register(models.ExternalJudgment)
class ExternalJudgmentAdmin(admin.ModelAdmin):
    list_display = ["system", "segment_id", "document", "rater", "item_type", "score", "triple"]
    list_filter = ["item_type", "source_lang"]
    search_fields = ["rater", "system"]
    raw_id_fields = ["triple", "source"]


@admin.register(models.ExternalSegmentScore)
class ExternalSegmentScoreAdmin(admin.ModelAdmin):
    list_display = ["system", "segment_id", "document", "raw", "z", "judgments", "triple"]
    list_filter = ["source_lang", "target_lang"]
    search_fields = ["system"]
    raw_id_fields = ["triple", "source"]


@admin.register(models.ErrorAnnotation)
class ErrorAnnotationAdmin(admin.ModelAdmin):
    list_display = ["judgment", "severity", "category", "side", "start", "end", "weight"]
    list_filter = ["severity"]
    raw_id_fields = ["judgment"]


@admin.register(models.JudgmentImport)
class JudgmentImportAdmin(admin.ModelAdmin):
    list_display = [
        "file_name", "testset", "source_lang", "level", "mapping", "check_r", "check_passed",
        "accepted_unverified", "imported_at",
    ]  # fmt: skip
    list_filter = ["level", "check_passed", "accepted_unverified", "source_lang"]
    search_fields = ["file_name", "sha256"]


@admin.register(models.SystemScore)
class SystemScoreAdmin(admin.ModelAdmin):
    list_display = ["testset", "source_lang", "system", "raw", "z", "n", "judgments", "cluster"]
    list_filter = ["testset", "source_lang"]
    raw_id_fields = ["source"]


@admin.register(models.Permutation)
class PermutationAdmin(admin.ModelAdmin):
    list_display = ["triple", "perm_type", "degree", "text", "quality"]
    list_filter = ["perm_type", "degree"]
    search_fields = ["text"]
    raw_id_fields = ["triple"]
    list_select_related = ["triple__corpus", "triple__segment"]


@admin.register(models.Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["pk", "kind", "triple", "permutation"]
    list_filter = [("permutation", admin.EmptyFieldListFilter), "permutation__perm_type"]
    raw_id_fields = ["triple", "permutation"]
    list_select_related = ["triple__corpus", "triple__segment", "permutation"]


class ConsentTextFormSet(BaseInlineFormSet):
    def clean(self):
        super().clean()
        for form in self.deleted_forms:
            if form.instance.pk is not None and form.instance.is_recorded():
                raise ValidationError(RECORDED.format(version=form.instance.version))


#: Why a consent version is never deleted once used.
RECORDED = (
    "Consent version {version} is what participants accepted or paper copies printed: it "
    "stays, and a new version replaces it for new participants."
)


class ConsentTextInline(admin.TabularInline):
    model = models.ConsentText
    formset = ConsentTextFormSet
    extra = 0


# The texts participants read, as the preview shows them: (field, where they read it).
PREVIEWED = (
    ("information_sheet", "Information sheet (the study link)"),
    ("consent_intro", "Consent form, before the statements"),
    ("consent_closing", "Consent form, after the statements"),
    ("instructions", "Instructions, before the practice pair"),
    ("debriefing", "Debriefing (the last page)"),
    ("data_use", "What happens to the data (also the withdrawal page)"),
)


def settings_help() -> str:
    """Each platform's settings, as the platform describes them."""
    keys = [
        format_html("<code>{}</code>: {}", f'"{platform.name}": {{"{key}": …}}', setting.help)
        for platform in platforms.PLATFORMS.values()
        for key, setting in platform.settings.items()
    ]
    lead = "The crowd platforms' own settings, a table for each platform by its name"
    if not keys:
        return lead + "."
    return format_html("{}: {}.", lead, format_html_join("; ", "{}", ((k,) for k in keys)))


@admin.register(models.Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "language", "items_per_questionnaire", "is_open", "launched_at"]
    prepopulated_fields = {"slug": ["name"]}
    raw_id_fields = ["sample_item", "shared_items"]
    readonly_fields = ["launched_at", "preview"]
    inlines = [ConsentTextInline]
    # A return address typed without a scheme is a web address (Django 6's default).
    formfield_overrides = {URLField: {"assume_scheme": "https"}}

    class Media:
        css = {"all": ["survey/admin/preview.css"]}

    @admin.display(description="Preview of the texts, as participants read them")
    def preview(self, study):
        """The saved texts with the study's settings filled in, rendered as on the participant
        pages; an empty setting shows as [its name]."""
        if study.pk is None:
            return "Save the study to see its texts as participants read them."
        sections = [
            format_html(
                '<section class="text-preview" data-preview="{}"><h3>{}</h3>'
                '<div class="document">{}</div></section>',
                name,
                where,
                render_to_string(
                    "survey/_document.html",
                    {"blocks": texts.blocks(texts.fill(getattr(study, name), study)), "level": 4},
                ),
            )
            for name, where in PREVIEWED
        ]
        note = format_html(
            '<p class="help">{}</p>',
            "As last saved: “Save and continue editing” shows your changes here.",
        )
        return format_html("{}{}", note, format_html_join("", "{}", ((s,) for s in sections)))

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if "platform_settings" in form.base_fields:
            form.base_fields["platform_settings"].help_text = settings_help()
        return form

    def save_model(self, request, obj, form, change):
        if not change:  # the texts left as the form offered them follow the study's language
            obj.take_language_defaults(given=form.changed_data)
        super().save_model(request, obj, form, change)


@admin.register(models.PoolEntry)
class PoolEntryAdmin(admin.ModelAdmin):
    """A study's pool is drawn (sample_pool, create_study), never edited by hand: read only."""

    list_display = ["study", "triple"]
    list_filter = ["study"]
    list_select_related = ["study", "triple__corpus", "triple__segment"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(models.StudyPlan)
class StudyPlanAdmin(admin.ModelAdmin):
    """What the study file declared (study_config writes it back); changed by building a
    changed file, so read only here."""

    list_display = ["study"]
    readonly_fields = ["study", "sources", "pool", "permutations", "questionnaires"]

    def has_add_permission(self, request):
        return False


class QuestionnaireEntryInline(admin.TabularInline):
    """Entries are edited here only until a participant starts the questionnaire; after that,
    changes go through survey.design.questionnaires.revise(), which writes a new version."""

    model = models.QuestionnaireEntry
    raw_id_fields = ["item"]
    extra = 0

    def has_change_permission(self, request, obj=None):
        return obj is None or not is_frozen(obj)

    has_add_permission = has_delete_permission = has_change_permission


@admin.register(models.Questionnaire)
class QuestionnaireAdmin(admin.ModelAdmin):
    list_display = ["__str__", "study", "number", "version", "frozen", "active", "seed"]
    list_filter = ["study", "frozen", "active"]
    inlines = [QuestionnaireEntryInline]


class LanguageInline(admin.TabularInline):
    model = models.ParticipantLanguage
    extra = 0


class RatingInline(admin.TabularInline):
    model = models.Rating
    raw_id_fields = ["item"]
    extra = 0


@admin.register(models.Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = [
        "pk",
        "study",
        "questionnaire",
        "status",
        "mode",
        "simulated",
        "created",
        "last_activity",
    ]
    list_filter = ["study", "status", "mode", "simulated", "education", "gender"]
    # A paper participant who withdraws names the copy code printed on every page.
    search_fields = ["paper_copy__code"]
    readonly_fields = ["token"]
    inlines = [LanguageInline, RatingInline]

    # Deleting a participant here is their withdrawal: everything of them is erased (paper
    # scans and report files too), leaving a count.
    def delete_model(self, request, obj):
        participation.withdraw(obj)

    def delete_queryset(self, request, queryset):
        for participant in queryset:
            participation.withdraw(participant)


@admin.register(models.Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["participant", "position", "item", "holistic", "order", "practice", "revisions"]
    list_filter = ["practice", "participant__study"]
    raw_id_fields = ["participant", "item"]


@admin.register(models.DeclinedConsent)
class DeclinedConsentAdmin(admin.ModelAdmin):
    list_display = ["study", "created"]


@admin.register(models.Withdrawal)
class WithdrawalAdmin(admin.ModelAdmin):
    list_display = ["study", "simulated", "created"]


@admin.register(models.ConsentText)
class ConsentTextAdmin(admin.ModelAdmin):
    list_display = ["study", "version", "created"]
    list_filter = ["study"]

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and not (obj and obj.is_recorded())


@admin.register(models.QuestionnaireEntry)
class QuestionnaireEntryAdmin(admin.ModelAdmin):
    list_display = ["questionnaire", "position", "item", "shared"]
    list_filter = ["questionnaire__study", "shared"]
    raw_id_fields = ["questionnaire", "item"]

    def has_change_permission(self, request, obj=None):
        return obj is None or not is_frozen(obj.questionnaire)

    has_delete_permission = has_change_permission


@admin.register(models.ParticipantLanguage)
class ParticipantLanguageAdmin(admin.ModelAdmin):
    list_display = ["participant", "language", "fluency", "qualifications"]
    list_filter = ["fluency"]
    search_fields = ["language"]
    raw_id_fields = ["participant"]


@admin.register(models.PlatformIdentity)
class PlatformIdentityAdmin(admin.ModelAdmin):
    """Crowd-platform ids, for paying participants; never part of an export."""

    list_display = [
        "participant", "prolific_pid", "session_id", "worker_id", "assignment_id", "pid",
    ]  # fmt: skip
    search_fields = ["prolific_pid", "worker_id", "pid"]
    raw_id_fields = ["participant"]


@admin.register(models.PaperLayout)
class PaperLayoutAdmin(admin.ModelAdmin):
    list_display = ["pk", "study", "questionnaire", "created"]
    list_filter = ["study"]
    readonly_fields = ["study", "questionnaire", "layout"]


@admin.register(models.PaperCopy)
class PaperCopyAdmin(admin.ModelAdmin):
    list_display = ["code", "layout", "participant", "created"]
    search_fields = ["code"]
    readonly_fields = ["code", "layout", "participant"]


@admin.register(models.ScanPage)
class ScanPageAdmin(admin.ModelAdmin):
    list_display = ["copy", "page", "source", "created"]
    search_fields = ["copy__code", "source"]
    readonly_fields = ["copy", "page", "source", "boxes"]


@admin.register(models.PaperAnswer)
class PaperAnswerAdmin(admin.ModelAdmin):
    list_display = ["copy", "page", "field", "kind", "status", "value", "reviewed_by"]
    list_filter = ["status", "kind"]
    search_fields = ["copy__code", "field"]
    readonly_fields = ["copy", "page", "field", "kind", "reason"]


@admin.register(models.EntryCount)
class EntryCountAdmin(admin.ModelAdmin):
    list_display = ["address", "window", "count"]
    search_fields = ["address"]
