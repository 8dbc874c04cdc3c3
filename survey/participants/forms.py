"""Participant forms: consent, about you (with language rows) and one item's answers."""

from __future__ import annotations

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import connection, transaction
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy

from survey.models import Participant, ParticipantLanguage
from survey.participants import rows
from survey.participants.participation import MARKS, SCALES, Answer
from wojdb.core.language.codes import LANGUAGE_NAMES
from wojdb.core.numbers import read_number
from wojdb.core.texts import en

YES_NO = [("yes", gettext_lazy("Yes")), ("no", gettext_lazy("No"))]
SCALE_CHOICES = [(n, str(n)) for n in range(1, 6)]
MAX_CLIENT_MS = 24 * 60 * 60 * 1000
# Languages that write language names in lower case mid-sentence (Django capitalises them).
LOWER_CASE_NAMES = {"fr", "es", "it", "pt", "ca", "ro"}


class _TypedNumber:
    """A number typed into a form, read by the program's one rule (wojdb.core.numbers): ASCII
    digits, where Django's IntegerField and FloatField also take "1_0" as 10 and "٣" as 3 (and
    IntegerField "3.0" as 3). Spaces around it are the form's, not the number's: a browser's
    number box drops them."""

    kind: type = float

    def to_python(self, value):
        if value in self.empty_values:
            return None
        try:
            return read_number(str(value).strip(), self.kind)
        except ValueError:
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None


class WholeNumber(_TypedNumber, forms.IntegerField):
    kind = int


class DecimalNumber(_TypedNumber, forms.FloatField):
    kind = float


def language_name(code: str) -> str:
    """A language's name in the active language: Django's catalogues name the languages it
    knows; other codes go by their English name, or the code."""
    try:
        name = str(translation.get_language_info(code)["name_translated"])
    except KeyError:
        return LANGUAGE_NAMES.get(code, code)
    if translation.get_language() in LOWER_CASE_NAMES:
        return name[:1].lower() + name[1:]
    return name


class ConsentForm(forms.Form):
    """One Yes/No question per consent statement, as on the paper form; the statements the
    consent text marks optional may be answered No."""

    def __init__(self, consent, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.consent = consent
        optional = set(consent.optional or [])
        for number, statement in enumerate(consent.statements, start=1):
            field = forms.ChoiceField(
                label=statement, choices=YES_NO, widget=forms.RadioSelect, required=False
            )
            field.optional_statement = number in optional
            self.fields[f"statement_{number}"] = field

    def accepted(self) -> bool:
        """True when every statement was answered and every required one with Yes; otherwise
        explains what is missing."""
        answers = {name: self.cleaned_data.get(name) for name in self.fields}
        if any(not answer for answer in answers.values()):
            self.add_error(None, gettext("Please answer Yes or No to every statement."))
            return False
        refused = [
            name
            for name, answer in answers.items()
            if answer == "no" and not self.fields[name].optional_statement
        ]
        if refused:
            self.add_error(
                None,
                gettext(
                    "Taking part needs a Yes to every statement not marked optional. You can "
                    "change your answers, or choose “I do not wish to take part”."
                ),
            )
            return False
        return True

    def shares_data(self) -> bool:
        """The answer to the statement on releasing the data (Yes where there is none)."""
        if self.consent.sharing is None:
            return True
        return self.cleaned_data.get(f"statement_{self.consent.sharing}") == "yes"


# The participant's fields the about-you page writes.
ABOUT_FIELDS = [
    "target_first",
    "target_years",
    "gender",
    "nationality",
    "education",
    "reading_disability",
    "grammar_attention",
    "age",
]


def _lazy(message: str):
    """A message of wojdb/core/texts/en.py (marked there with N_), translated when shown."""
    return gettext_lazy(message)


class AboutForm(forms.Form):
    """The survey cover page's "About You" questions; every answer is optional. The questions
    on the first language name the study's language."""

    target_first = forms.ChoiceField(
        choices=YES_NO,
        widget=forms.RadioSelect,
        required=False,
    )
    target_years = WholeNumber(
        label=_lazy(en.ABOUT_YOU["target_years"]),
        help_text=gettext_lazy("In years."),
        min_value=0,
        max_value=120,
        required=False,
    )
    gender = forms.ChoiceField(
        label=_lazy(en.ABOUT_YOU["gender"]),
        choices=Participant.GENDERS,
        widget=forms.RadioSelect,
        required=False,
    )
    nationality = forms.CharField(
        label=_lazy(en.ABOUT_YOU["nationality"]), max_length=100, required=False
    )
    education = forms.ChoiceField(
        label=_lazy(en.ABOUT_YOU["education"]),
        choices=Participant.EDUCATION,
        widget=forms.RadioSelect,
        required=False,
    )
    disability = forms.ChoiceField(
        label=_lazy(en.ABOUT_YOU["reading_disability"]),
        choices=YES_NO[::-1],
        widget=forms.RadioSelect,
        required=False,
    )
    disability_detail = forms.CharField(
        label=gettext_lazy("If yes, please specify"), max_length=290, required=False
    )
    grammar_attention = forms.TypedChoiceField(
        label=_lazy(en.ABOUT_YOU["grammar_attention"]),
        choices=SCALE_CHOICES,
        coerce=int,
        empty_value=None,
        widget=forms.RadioSelect,
        required=False,
    )
    age = WholeNumber(label=_lazy(en.ABOUT_YOU["age"]), min_value=1, max_value=120, required=False)

    def __init__(self, study, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["target_first"].label = gettext(en.ABOUT_YOU["target_first"]) % {
            "language": language_name(study.language)
        }

    @classmethod
    def initial_for(cls, participant: Participant) -> dict:
        yes_no = {True: "yes", False: "no", None: ""}
        disability = participant.reading_disability
        return {
            "target_first": yes_no[participant.target_first],
            "target_years": participant.target_years,
            "gender": participant.gender,
            "nationality": participant.nationality,
            "education": participant.education,
            "disability": {"": "", "No": "no"}.get(disability, "yes"),
            "disability_detail": "" if disability in ("", "No", "Yes") else disability,
            "grammar_attention": participant.grammar_attention,
            "age": participant.age,
        }

    def apply(self, participant: Participant) -> None:
        """Copy the answers onto the participant (not saved).

        The reading-disability answer is stored as "No", "Yes", or the details given.
        """
        data = self.cleaned_data
        participant.target_first = {"yes": True, "no": False}.get(data["target_first"])
        participant.target_years = data["target_years"]
        participant.gender = data["gender"]
        participant.nationality = data["nationality"].strip()
        participant.education = data["education"]
        detail = data["disability_detail"].strip()
        participant.reading_disability = {
            "no": "No",
            "yes": detail or "Yes",
            "": detail,
        }[data["disability"]]
        participant.grammar_attention = data["grammar_attention"]
        participant.age = data["age"]


class LanguageForm(forms.Form):
    language = forms.CharField(label=gettext_lazy("Language"), max_length=100, required=False)
    fluency = forms.TypedChoiceField(
        label=gettext_lazy("Fluency"),
        choices=[("", gettext_lazy("Choose…")), *ParticipantLanguage.FLUENCY],
        coerce=int,
        empty_value=None,
        required=False,
    )
    qualifications = forms.CharField(
        label=gettext_lazy("Qualifications"), max_length=300, required=False
    )

    def clean(self):
        data = super().clean()
        if data.get("language", "").strip() and data.get("fluency") is None:
            self.add_error("fluency", gettext("Please choose how well you speak this language."))
        if not data.get("language", "").strip() and (
            data.get("fluency") is not None or data.get("qualifications", "").strip()
        ):
            self.add_error("language", gettext("Please name the language."))
        return data


# absolute_max caps the rows built from a posted TOTAL_FORMS: Django's default (max_num + 1000)
# let a 100-byte post make the server build and render a thousand rows.
MAX_LANGUAGES = 30
LanguageFormSet = forms.formset_factory(
    LanguageForm,
    extra=0,
    max_num=MAX_LANGUAGES,
    absolute_max=MAX_LANGUAGES,
    validate_max=True,
)


# A participant's languages, in the order given (written as SQL, see survey/participants/rows.py).
LANGUAGE_FIELDS = ("language", "fluency", "qualifications")
LANGUAGES = (
    f"SELECT {', '.join(LANGUAGE_FIELDS)} FROM survey_participantlanguage"
    " WHERE participant_id = %s ORDER BY id"
)
FORGET_LANGUAGES = "DELETE FROM survey_participantlanguage WHERE participant_id = %s"


def language_formset(participant: Participant, data=None, extra_rows: int = 0):
    """The participant's languages as form rows: the posted ones (plus `extra_rows` blank
    rows), or the stored ones with at least one blank row to fill in."""
    if data is not None:
        formset = LanguageFormSet(data, prefix="languages")
        if extra_rows:
            data = data.copy()
            data["languages-TOTAL_FORMS"] = str(formset.total_form_count() + extra_rows)
            formset = LanguageFormSet(data, prefix="languages")
        return formset
    with connection.cursor() as cursor:
        cursor.execute(LANGUAGES, [participant.pk])
        initial = [dict(zip(LANGUAGE_FIELDS, row, strict=True)) for row in cursor.fetchall()]
    formset = LanguageFormSet(initial=initial, prefix="languages")
    formset.extra = max(1, 2 - len(initial))
    return formset


def save_about(participant: Participant, form: AboutForm, languages, done: bool) -> None:
    """Store the about-you answers and replace the language rows, in one transaction."""
    form.apply(participant)
    participant.about_done = participant.about_done or done
    fields = [*ABOUT_FIELDS, "about_done"]
    with transaction.atomic():
        rows.update(Participant, participant.pk, {f: getattr(participant, f) for f in fields})
        with connection.cursor() as cursor:
            cursor.execute(FORGET_LANGUAGES, [participant.pk])
        ParticipantLanguage.objects.bulk_create(
            ParticipantLanguage(
                participant=participant,
                language=row["language"].strip(),
                fluency=row["fluency"],
                qualifications=row["qualifications"].strip(),
            )
            for row in languages.cleaned_data
            if row and row["language"].strip()
        )


class SharedFields(dict):
    """A form's fields that every instance uses as they are: a form deep-copies its fields so
    that one may change them, which took a fifth of an answer save's time."""

    def __deepcopy__(self, memo):
        return self


class MarkPositions(forms.Field):
    """The words ticked out of place: each a position in the first sentence, from 0 (whether
    the sentence has it is for the save to say, which knows the sentence)."""

    widget = forms.MultipleHiddenInput
    default_error_messages = {
        "invalid": gettext_lazy("A word marked is not a position in the sentence.")
    }

    def to_python(self, value) -> tuple[int, ...]:
        positions = []
        for each in value or ():
            try:
                positions.append(read_number(str(each).strip(), int))
            except ValueError:
                raise ValidationError(self.error_messages["invalid"], code="invalid") from None
            if positions[-1] < 0:
                raise ValidationError(self.error_messages["invalid"], code="invalid")
        return tuple(sorted(set(positions)))


class MarksBasis(forms.CharField):
    """The marks the page was showing (`was_marks`): "" not answered, "none", or positions."""

    def to_python(self, value) -> tuple[int, ...] | None:
        value = super().to_python(value)
        if value == "":
            return None
        if value == "none":
            return ()
        return MarkPositions().to_python(value.split())


BOTH_MARKS = gettext_lazy(
    "Some words are marked out of place and “No word is out of place” is ticked too: please "
    "choose one or the other."
)


class AnswerForm(forms.Form):
    """One item's answers as posted by the page (with or without JavaScript). It is never
    rendered, and validating changes no field, so its fields are shared."""

    item = WholeNumber(min_value=1)
    holistic = forms.TypedChoiceField(
        choices=SCALE_CHOICES, coerce=int, empty_value=None, required=False
    )
    order = forms.TypedChoiceField(
        choices=SCALE_CHOICES, coerce=int, empty_value=None, required=False
    )
    was_holistic = forms.TypedChoiceField(
        choices=SCALE_CHOICES, coerce=int, empty_value=None, required=False
    )
    was_order = forms.TypedChoiceField(
        choices=SCALE_CHOICES, coerce=int, empty_value=None, required=False
    )
    client_ms = WholeNumber(min_value=0, max_value=MAX_CLIENT_MS, required=False)
    go = forms.ChoiceField(
        choices=[("next", "next"), ("back", "back"), ("stay", "stay"), ("start", "start")],
        required=False,
    )
    flagged = forms.BooleanField(required=False)
    comment = forms.CharField(max_length=500, required=False, strip=True)
    # A study with word marks: the units ticked, "none", what the page showed, and that the
    # page asked (an unticked box is not sent).
    marks = MarkPositions(required=False)
    marks_none = forms.BooleanField(required=False)
    was_marks = MarksBasis(required=False)

    def clean(self):
        data = super().clean()
        if data.get("marks") and data.get("marks_none"):
            raise ValidationError(BOTH_MARKS, code="both")
        return data

    def answer(self) -> Answer:
        data = self.cleaned_data
        note = None
        if "note" in self.data:  # the page's flag and comment were sent (an unticked box is not)
            note = (data["flagged"], data["comment"])
        basis = {s: data[f"was_{s}"] for s in SCALES if f"was_{s}" in self.data}
        marked = "marks_asked" in self.data
        marks = None
        if marked:
            marks = () if data["marks_none"] else data["marks"] or None
            if "was_marks" in self.data:
                basis[MARKS] = data["was_marks"]
        return Answer(
            holistic=data["holistic"],
            order=data["order"],
            client_ms=data["client_ms"],
            note=note,
            basis=basis,
            marks=marks,
            marked=marked,
        )

    def problem(self) -> str:
        """A short explanation of why the submission was refused."""
        if self.has_error(NON_FIELD_ERRORS, "both"):
            return str(BOTH_MARKS)
        names = {
            "holistic": gettext("the first question"),
            "order": gettext("the second question"),
            "marks": gettext("the words marked out of place"),
        }
        fields = [names.get(name, name.replace("_", " ")) for name in self.errors]
        return gettext("This answer could not be accepted (%(fields)s).") % {
            "fields": ", ".join(fields)
        }


AnswerForm.base_fields = SharedFields(AnswerForm.base_fields)
