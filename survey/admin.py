"""The admin, scoped by study team: each researcher sees and changes only what hangs off the
studies where their role allows it (survey/access.py); the WMT data every study shares is read
by every researcher and changed by superusers alone; the studies' records by nobody."""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import BigIntegerField, FloatField, IntegerField, URLField
from django.forms.models import BaseInlineFormSet
from django.template.loader import render_to_string
from django.utils.html import format_html, format_html_join

from survey import access, models, platforms, record
from survey.access import MANAGE, PEOPLE, RECORD, TEAM, VIEW
from survey.design import shown
from survey.participants import participation
from survey.participants.forms import DecimalNumber, WholeNumber
from wojdb.core import texts
from wojdb.core.vocabulary import OWNER

#: Numbers typed here are read by the program's one rule (wojdb.core.numbers), not by int() and
#: float(), which take "1_0" and "٣". BigIntegerField is named too: Django's own entry for it
#: (its widget) would otherwise come first.
NUMBERS = {
    IntegerField: {"form_class": WholeNumber},
    BigIntegerField: {"form_class": WholeNumber},
    FloatField: {"form_class": DecimalNumber},
}


class ModelAdmin(admin.ModelAdmin):
    formfield_overrides = NUMBERS


class TabularInline(admin.TabularInline):
    formfield_overrides = NUMBERS


#: The way from each study-scoped model to its study, for querysets ("" is the study itself).
STUDY_PATHS = {
    models.Study: "",
    models.PoolEntry: "study",
    models.StudyPlan: "study",
    models.Questionnaire: "study",
    models.QuestionnaireEntry: "questionnaire__study",
    models.Participant: "study",
    models.Rating: "participant__study",
    models.ParticipantLanguage: "participant__study",
    models.PlatformIdentity: "participant__study",
    models.DeclinedConsent: "study",
    models.Withdrawal: "study",
    models.ConsentText: "study",
    models.PaperLayout: "study",
    models.PaperCopy: "layout__study",
    models.ScanPage: "copy__layout__study",
    models.PaperAnswer: "copy__layout__study",
    models.StudyMember: "study",
    models.StudyEvent: "study",
}


def _study_of(obj) -> models.Study | None:
    path = STUDY_PATHS[type(obj)]
    for step in path.split("__") if path else ():
        obj = getattr(obj, step)
    return obj


def _studies(request, right: str):
    return access.studies_for(request.user, right)


class StudyScoped:
    """What a researcher may do with a model of their studies, by their role: `view_right` to
    see an object (and list those of their studies), `change_right` to add or change one,
    `delete_right` to delete it. Django's per-model permissions play no part."""

    view_right, change_right, delete_right = VIEW, MANAGE, MANAGE

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        path = STUDY_PATHS[queryset.model]
        return queryset.filter(
            **{f"{path}__in" if path else "pk__in": _studies(request, self.view_right)}
        )

    def _allowed(self, request, right, obj=None) -> bool:
        if not (request.user.is_active and request.user.is_staff):
            return False
        if request.user.is_superuser:
            return True
        if obj is None:
            return _studies(request, right).exists()
        study = _study_of(obj)
        return study is not None and access.may(request.user, study, right)

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return self._allowed(request, self.view_right, obj)

    def has_add_permission(self, request, *args):
        return self._allowed(request, self.change_right)

    def has_change_permission(self, request, obj=None):
        return self._allowed(request, self.change_right, obj)

    def has_delete_permission(self, request, obj=None):
        return self._allowed(request, self.delete_right, obj)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        """A new or changed object can name only the studies (and their questionnaires,
        participants, paper copies) where the researcher has the right to change it."""
        related = db_field.related_model
        if related in STUDY_PATHS and not request.user.is_superuser:
            path = STUDY_PATHS[related]
            studies = _studies(request, self.change_right)
            kwargs["queryset"] = related.objects.filter(
                **{f"{path}__in" if path else "pk__in": studies}
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class StudyScopedInline(StudyScoped):
    """An inline is shown and changed with its parent, by the rights on the parent's study."""

    def get_queryset(self, request):
        return super(StudyScoped, self).get_queryset(request)

    def has_view_permission(self, request, obj=None):
        return self._allowed(request, self.view_right, obj)

    def has_add_permission(self, request, obj=None):
        return self._allowed(request, self.change_right, obj)


class ScopedAdmin(StudyScoped, ModelAdmin):
    """A study-scoped model's admin; what a researcher does here is on the study's record."""

    def changeform_view(self, request, *args, **kwargs):
        with record.acting_as(request.user):
            return super().changeform_view(request, *args, **kwargs)

    def delete_view(self, request, *args, **kwargs):
        with record.acting_as(request.user):
            return super().delete_view(request, *args, **kwargs)

    def changelist_view(self, request, *args, **kwargs):
        with record.acting_as(request.user):
            return super().changelist_view(request, *args, **kwargs)


class PeopleAdmin(ScopedAdmin):
    """Participants' own records: seen by those who may see people's answers."""

    view_right = PEOPLE


class SharedData(ModelAdmin):
    """WMT data every study shares: read by every researcher, changed by superusers alone (a
    change would reach every study built on it)."""

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_staff

    def has_add_permission(self, request):
        return request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser


class ShownContent(SharedData):
    """A sentence, translation, permutation or item stays as it is, shown read only, once a
    study that holds it can no longer change what it shows (survey.design.shown)."""

    def has_change_permission(self, request, obj=None):
        allowed = super().has_change_permission(request, obj)
        return allowed and not (obj is not None and shown.locked_content(obj))


def only_theirs(field: str):
    """A list filter offering only the studies (or other objects) the listed rows name, never
    every study of the server."""
    return (field, admin.RelatedOnlyFieldListFilter)


@admin.register(models.Segment)
class SegmentAdmin(ShownContent):
    list_display = ["testset", "lp", "number", "reference", "reference_length", "parser"]
    list_filter = ["testset", "source_lang", "ref_name"]
    search_fields = ["reference", "source"]
    readonly_fields = ["parse"]


@admin.register(models.Corpus)
class CorpusAdmin(SharedData):
    list_display = ["testset", "year", "lp", "system"]
    list_filter = ["year", "source_lang", "testset"]
    search_fields = ["system"]


@admin.register(models.Triple)
class TripleAdmin(ShownContent):
    def get_list_filter(self, request):
        """Filtered by study for superusers only: the list would name every study's pool."""
        return self.list_filter if request.user.is_superuser else self.list_filter[1:]

    list_display = ["__str__", "hypothesis", "hypothesis_length", "rank_score", "da_raw"]
    list_filter = [only_theirs("pool_entries__study"), "corpus__source_lang", "corpus__system"]
    search_fields = ["hypothesis", "segment__reference"]
    list_select_related = ["corpus", "segment"]
    raw_id_fields = ["corpus", "segment"]
    readonly_fields = ["parse"]


@admin.register(models.ExternalJudgment)
class ExternalJudgmentAdmin(SharedData):
    list_display = ["system", "segment_id", "document", "rater", "item_type", "score", "triple"]
    list_filter = ["item_type", "source_lang"]
    search_fields = ["rater", "system"]
    raw_id_fields = ["triple", "source"]


@admin.register(models.ExternalSegmentScore)
class ExternalSegmentScoreAdmin(SharedData):
    list_display = ["system", "segment_id", "document", "raw", "z", "judgments", "triple"]
    list_filter = ["source_lang", "target_lang"]
    search_fields = ["system"]
    raw_id_fields = ["triple", "source"]


@admin.register(models.ErrorAnnotation)
class ErrorAnnotationAdmin(SharedData):
    list_display = ["judgment", "severity", "category", "side", "start", "end", "weight"]
    list_filter = ["severity"]
    raw_id_fields = ["judgment"]


@admin.register(models.JudgmentImport)
class JudgmentImportAdmin(SharedData):
    list_display = [
        "file_name", "testset", "source_lang", "level", "mapping", "check_r", "check_passed",
        "accepted_unverified", "imported_at",
    ]  # fmt: skip
    list_filter = ["level", "check_passed", "accepted_unverified", "source_lang"]
    search_fields = ["file_name", "sha256"]


@admin.register(models.SystemScore)
class SystemScoreAdmin(SharedData):
    list_display = ["testset", "source_lang", "system", "raw", "z", "n", "judgments", "cluster"]
    list_filter = ["testset", "source_lang"]
    raw_id_fields = ["source"]


@admin.register(models.Permutation)
class PermutationAdmin(ShownContent):
    list_display = ["triple", "perm_type", "degree", "text", "quality"]
    list_filter = ["perm_type", "degree"]
    search_fields = ["text"]
    raw_id_fields = ["triple"]
    list_select_related = ["triple__corpus", "triple__segment"]


@admin.register(models.Item)
class ItemAdmin(ShownContent):
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


class ConsentTextInline(StudyScopedInline, TabularInline):
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


class StudyForm(forms.ModelForm):
    """Once real people have taken part, what they read before or while answering stays as it
    was (survey.design.shown.FIXED), as a study file's build holds it."""

    def clean(self):
        cleaned = super().clean()
        study = self.instance
        reason = study.pk and shown.real_participation(study)
        changed = shown.fixed_changes(study, cleaned) if reason else []
        if changed:
            for name in changed:
                if name in self.fields:
                    self.add_error(name, "Participants were shown this: it stays as it is.")
            problem = shown.refusal(study, reason, changed, "this form")
            raise ValidationError(
                f"{problem[:1].upper()}{problem[1:]}. Nothing was saved. What participants read "
                "only after answering (the debriefing) and the contacts and results date stay "
                "editable."
            )
        return cleaned


@admin.register(models.Study)
class StudyAdmin(ScopedAdmin):
    form = StudyForm
    list_display = ["name", "slug", "language", "items_per_questionnaire", "is_open", "launched_at"]
    prepopulated_fields = {"slug": ["name"]}
    raw_id_fields = ["sample_item", "shared_items"]
    readonly_fields = ["launched_at", "preview"]
    inlines = [ConsentTextInline]
    # A return address typed without a scheme is a web address (Django 6's default).
    formfield_overrides = {**NUMBERS, URLField: {"assume_scheme": "https"}}

    class Media:
        css = {"all": ["survey/admin/preview.css"]}

    @admin.display(description="Preview of the texts, as participants read them")
    def preview(self, study):
        """The saved texts with the study's settings filled in, rendered as on the participant
        pages; an empty setting shows as [its name]."""
        if study.pk is None:
            return "Save the study to see its texts as participants read them."
        # The saved row, not the form's instance: a refused save leaves the typed texts on the
        # instance, and texts swelling once filled would be filled here (120 MB of page).
        study = models.Study.objects.get(pk=study.pk)
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

    delete_right = TEAM  # owners alone delete a study

    def has_add_permission(self, request):
        """Any researcher may start a study, of which they are then the owner."""
        return request.user.is_active and request.user.is_staff

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if "platform_settings" in form.base_fields:
            form.base_fields["platform_settings"].help_text = settings_help()
        return form

    def save_model(self, request, obj, form, change):
        if not change:  # the texts left as the form offered them follow the study's language
            obj.take_language_defaults(given=form.changed_data)
        stored = models.Study.objects.filter(pk=obj.pk).first() if change else None
        super().save_model(request, obj, form, change)
        if not change:
            record.note(obj, "study created")
            if not request.user.is_superuser:
                access.set_role(obj, request.user, OWNER)
            return
        # What the save changed: a text sent back with other line ends is the same text.
        columns = {f.name for f in obj._meta.concrete_fields}
        changed = [
            name
            for name in form.changed_data
            if name not in columns or getattr(stored, name) != getattr(obj, name)
        ]
        if changed:
            record.note(obj, "settings changed", fields=sorted(changed))

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.new_objects or formset.changed_objects or formset.deleted_objects:
            record.note(
                form.instance,
                "consent texts changed",
                versions=sorted(
                    o.version for o in formset.new_objects + [o for o, _ in formset.changed_objects]
                ),
            )

    def delete_model(self, request, obj):
        _note_deletion(obj)
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for study in queryset:
            _note_deletion(study)
        super().delete_queryset(request, queryset)


def _note_deletion(study: models.Study) -> None:
    """The record outlives the study: what went with it, counted."""
    record.note(
        study,
        "study deleted",
        participants=study.participants.count(),
        questionnaires=study.questionnaires.count(),
        ratings=models.Rating.objects.filter(participant__study=study).count(),
    )


@admin.register(models.PoolEntry)
class PoolEntryAdmin(ScopedAdmin):
    """A study's pool is drawn (sample_pool, create_study), never edited by hand: read only."""

    list_display = ["study", "triple"]
    list_filter = [only_theirs("study")]
    list_select_related = ["study", "triple__corpus", "triple__segment"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(models.StudyPlan)
class StudyPlanAdmin(ScopedAdmin):
    """What the study file declared (study_config writes it back); changed by building a
    changed file, so read only here."""

    list_display = ["study"]
    readonly_fields = ["study", "sources", "pool", "permutations", "questionnaires"]

    def has_add_permission(self, request):
        return False


class QuestionnaireEntryInline(StudyScopedInline, TabularInline):
    """Entries are edited here only until a participant starts the questionnaire; after that,
    changes go through survey.design.questionnaires.revise(), which writes a new version."""

    model = models.QuestionnaireEntry
    raw_id_fields = ["item"]
    extra = 0

    def has_change_permission(self, request, obj=None):
        from survey.design.questionnaires import is_frozen  # composing loads on use

        return super().has_change_permission(request, obj) and (obj is None or not is_frozen(obj))

    def has_add_permission(self, request, obj=None):
        return self.has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self.has_change_permission(request, obj)


@admin.register(models.Questionnaire)
class QuestionnaireAdmin(ScopedAdmin):
    list_display = ["__str__", "study", "number", "version", "frozen", "active", "seed"]
    list_filter = [only_theirs("study"), "frozen", "active"]
    inlines = [QuestionnaireEntryInline]


class LanguageInline(StudyScopedInline, TabularInline):
    model = models.ParticipantLanguage
    extra = 0


class RatingInline(StudyScopedInline, TabularInline):
    model = models.Rating
    raw_id_fields = ["item"]
    extra = 0


@admin.register(models.Participant)
class ParticipantAdmin(PeopleAdmin):
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
    list_filter = [only_theirs("study"), "status", "mode", "simulated", "education", "gender"]
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
class RatingAdmin(PeopleAdmin):
    list_display = ["participant", "position", "item", "holistic", "order", "practice", "revisions"]
    list_filter = ["practice", only_theirs("participant__study")]
    raw_id_fields = ["participant", "item"]


@admin.register(models.DeclinedConsent)
class DeclinedConsentAdmin(ScopedAdmin):
    list_display = ["study", "created"]


@admin.register(models.Withdrawal)
class WithdrawalAdmin(ScopedAdmin):
    list_display = ["study", "simulated", "created"]


@admin.register(models.ConsentText)
class ConsentTextAdmin(ScopedAdmin):
    list_display = ["study", "version", "created"]
    list_filter = [only_theirs("study")]

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and not (obj and obj.is_recorded())


@admin.register(models.QuestionnaireEntry)
class QuestionnaireEntryAdmin(ScopedAdmin):
    list_display = ["questionnaire", "position", "item", "shared"]
    list_filter = [only_theirs("questionnaire__study"), "shared"]
    raw_id_fields = ["questionnaire", "item"]

    def has_change_permission(self, request, obj=None):
        from survey.design.questionnaires import is_frozen  # composing loads on use

        frozen = obj is not None and is_frozen(obj.questionnaire)
        return super().has_change_permission(request, obj) and not frozen

    def has_delete_permission(self, request, obj=None):
        return self.has_change_permission(request, obj)


@admin.register(models.ParticipantLanguage)
class ParticipantLanguageAdmin(PeopleAdmin):
    list_display = ["participant", "language", "fluency", "qualifications"]
    list_filter = ["fluency"]
    search_fields = ["language"]
    raw_id_fields = ["participant"]


@admin.register(models.PlatformIdentity)
class PlatformIdentityAdmin(PeopleAdmin):
    """Crowd-platform ids, for paying participants; never part of an export."""

    list_display = [
        "participant", "prolific_pid", "session_id", "worker_id", "assignment_id", "pid",
    ]  # fmt: skip
    search_fields = ["prolific_pid", "worker_id", "pid"]
    raw_id_fields = ["participant"]


@admin.register(models.PaperLayout)
class PaperLayoutAdmin(ScopedAdmin):
    list_display = ["pk", "study", "questionnaire", "created"]
    list_filter = [only_theirs("study")]
    readonly_fields = ["study", "questionnaire", "layout"]


@admin.register(models.PaperCopy)
class PaperCopyAdmin(PeopleAdmin):
    list_display = ["code", "layout", "participant", "created"]
    search_fields = ["code"]
    readonly_fields = ["code", "layout", "participant"]


@admin.register(models.ScanPage)
class ScanPageAdmin(PeopleAdmin):
    list_display = ["copy", "page", "source", "created"]
    search_fields = ["copy__code", "source"]
    readonly_fields = ["copy", "page", "source", "boxes"]


@admin.register(models.PaperAnswer)
class PaperAnswerAdmin(PeopleAdmin):
    list_display = ["copy", "page", "field", "kind", "status", "value", "reviewed_by"]
    list_filter = ["status", "kind"]
    search_fields = ["copy__code", "field"]
    readonly_fields = ["copy", "page", "field", "kind", "reason"]


@admin.register(models.StudyEvent)
class StudyEventAdmin(ScopedAdmin):
    """The studies' records: read, never written here."""

    view_right = RECORD
    list_display = ["at", "study_slug", "actor", "action", "details"]
    search_fields = ["study_slug", "actor"]

    def has_add_permission(self, request, *args):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(models.EntryCount)
class EntryCountAdmin(ModelAdmin):
    list_display = ["address", "window", "count"]
    search_fields = ["address"]
