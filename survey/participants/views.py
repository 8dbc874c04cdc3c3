"""Participant pages: entry, consent, about you, the sample, the pairs, finishing, withdrawal.

The personal link /p/<token>/ is the participant's only credential. Every page of it is
uncached, records activity, and checks CSRF on posts itself so that an expired page can tell
the participant and recover instead of showing the project-wide failure page.
"""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.http import Http404, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware, get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from survey import platforms, record
from survey.design.lifecycle import study_status
from survey.models import Study
from survey.participants import participation, study_cache
from survey.participants.assignment import StudyClosed
from survey.participants.forms import (
    AboutForm,
    AnswerForm,
    ConsentForm,
    language_formset,
    language_name,
    save_about,
)
from survey.participants.participation import Refused, StartedElsewhere
from wojdb.core import texts
from wojdb.core.language.codes import right_to_left
from wojdb.core.texts import en
from wojdb.core.vocabulary import COMPLETED

# HEAD answers as GET does (link checkers and chat previews use it).
READ_AND_POST = ["GET", "HEAD", "POST"]

EXPIRED = gettext_lazy(
    "This page had expired, so what you sent was not saved yet. The page has been renewed: "
    "please check your answers and send them again."
)
CONFLICT = gettext_lazy(
    "This answer was changed in another window or on another device. The page now shows the "
    "answer that is saved; change it again if you wish."
)
FINISHED = gettext_lazy(
    "You have already finished the study, so your answers can no longer be changed."
)
BOTH_ANSWERS = gettext_lazy("Please answer both questions about this pair before moving on.")
EVERY_ANSWER = gettext_lazy("Please answer every question about this pair before moving on.")
MISSING = gettext_lazy("This question is not answered yet.")
UNANSWERED = "unanswered"  # the item page's query parameter after a refused move on


class CsrfRejected(Exception):
    pass


class _CsrfCheck(CsrfViewMiddleware):
    """Django's own CSRF check, raising instead of rendering the site-wide failure page."""

    def _reject(self, request, reason):
        raise CsrfRejected(reason)


def same_origin_in_frame(request, study: Study) -> bool:
    """Whether a post to a study shown in a crowd platform's frame (participation.framed_by)
    came from this site's own page, as the browser says: Fetch Metadata's Sec-Fetch-Site, else
    the Origin header. In such a frame browsers withhold this site's cookies, the CSRF cookie
    among them; what it would prove, a page of another site cannot forge here either."""
    if not participation.framed_by(study):
        return False
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site == "same-origin"
    return request.headers.get("Origin") == f"{request.scheme}://{request.get_host()}"


def allow_frames(response, study: Study | None):
    """Let the study's crowd platform show this page in its frame and receive its forms, where
    it does (MTurk); the headers are written by survey.participants.middleware."""
    if study is not None and (origins := participation.framed_by(study)):
        response.framed_by = origins
        response.xframe_options_exempt = True
    return response


def csrf_rejection(request, view, study: Study) -> str | None:
    if same_origin_in_frame(request, study):
        return None
    try:
        _CsrfCheck(lambda request: None).process_view(request, view, (), {})
    except CsrfRejected as rejection:
        return str(rejection)
    return None


def in_language(study: Study | None):
    """The participant pages of a study are in its language (Django's own strings included);
    without a study, in the site's."""
    return translation.override(study.language if study else settings.LANGUAGE_CODE)


def wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def document(text: str, study: Study) -> list[tuple[str, str]]:
    return texts.blocks(texts.fill(text, study))


def page(request, template: str, participant=None, status: int = 200, **context):
    """Render a participant page with what every page shows (study, its platform, reading mode,
    links). `here`: the page's own address, where it is not the request's (a pair's page sent
    in the reply to the previous pair's save)."""
    context["here"] = context.get("here") or request.path
    if participant is not None:
        context.setdefault("study", participant.study)
        context["platform"] = platforms.serving(participant)
        context["participant"] = participant
        context["reading"] = participant.reading_mode
        context["personal_link"] = request.build_absolute_uri(
            reverse("survey:resume", args=[participant.token])
        )
    return render(request, template, context, status=status)


def expired(request, participant):
    """The answer to a post whose CSRF token was refused: nothing written, a renewed page."""
    if wants_json(request):
        return JsonResponse(
            {"saved": False, "reason": "expired", "message": EXPIRED, "csrf": get_token(request)},
            status=403,
        )
    return page(request, "survey/expired.html", participant, status=403, again=request.path)


def refuse(request, participant, message: str, status: int = 400, back: str = ""):
    if wants_json(request):
        body = {"saved": False, "reason": "refused", "message": message}
        return JsonResponse(body, status=status)
    back = back or participation.resume_url(participant)
    return page(request, "survey/refused.html", participant, status, message=message, back=back)


def same_site(study: Study) -> str:
    """The cookie's SameSite: "None" for a study its platform frames (MTurk), where a "Lax"
    cookie is withheld, when served over HTTPS (browsers take "None" only with Secure)."""
    framed = participation.framed_by(study) and settings.SESSION_COOKIE_SECURE
    return "None" if framed else "Lax"


def remember(response, participant):
    """Let this browser hold the participation, so the study link brings it back here."""
    response.set_cookie(
        participation.browser_cookie(participant.study),
        participant.token,
        max_age=int(participation.BROWSER_MEMORY.total_seconds()),
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite=same_site(participant.study),
    )
    return response


def forget(response, study: Study):
    response.delete_cookie(participation.browser_cookie(study), samesite=same_site(study))
    return response


def participant_page(*, on_expired=expired, answers=False):
    """Look up the participant from the link's token, check CSRF on posts, and record the
    activity (and the position, where a view moved the participant) once the view is done.
    The browser is told to hold the participation, which the study link then resumes.
    `answers`: a post is an item's answers, and the participant's rating of the item it names
    is read with the participant."""

    def decorate(view):
        @csrf_exempt  # checked below, so the participant's page can recover
        @never_cache
        @require_http_methods(READ_AND_POST)
        @wraps(view)
        def wrapper(request, token, *args, **kwargs):
            item_id = posted_item(request) if answers and request.method == "POST" else None
            participant = participation.find(token, item_id)
            if participant is None:
                return render(request, "survey/unknown_link.html", status=404)
            with in_language(participant.study):
                if request.method == "POST" and csrf_rejection(request, view, participant.study):
                    return on_expired(request, participant, *args, **kwargs)
                response = view(request, participant, *args, **kwargs)
            allow_frames(response, participant.study)
            if participant.pk is None:  # withdrawn or declined
                return forget(response, participant.study)
            participation.touch(participant)
            if request.COOKIES.get(participation.browser_cookie(participant.study)) != token:
                remember(response, participant)
            return response

        return wrapper

    return decorate


def posted_item(request) -> int | None:
    """The item an answer's post names, where it is a valid item id (the form says why not)."""
    try:
        return AnswerForm.base_fields["item"].clean(request.POST.get("item"))
    except ValidationError:
        return None


def home(request):
    """The studies whose link takes someone new (`survey.design.lifecycle.study_status`)."""
    studies = Study.objects.filter(is_open=True).annotate(
        active=Count("questionnaires", filter=Q(questionnaires__active=True))
    )
    taking = [s for s in studies.order_by("name") if study_status(s, s.active > 0).takes_newcomers]
    return render(request, "survey/home.html", {"studies": taking})


@csrf_exempt  # checked in study_entry, which accepts a framed study's own posts
@never_cache
@require_http_methods(READ_AND_POST)
def entry(request, slug):
    study = study_cache.by_slug(slug)
    if study is None:
        raise Http404("No such study.")
    with in_language(study):
        return allow_frames(study_entry(request, study), study)


def study_entry(request, study):
    """The study link: the information sheet, then a new participant on "Continue".

    A browser that holds a participation of the study resumes it; starting afresh is the
    participant's explicit choice (`afresh` posted), which releases the one held. A platform's
    preview (MTurk's) shows what taking part is like and stores nothing."""
    if request.method == "POST" and not same_origin_in_frame(request, study):
        refused = CsrfViewMiddleware(lambda request: None).process_view(
            request, study_entry, (), {}
        )
        if refused is not None:
            return refused
    platform = platforms.of(study)
    params = request.POST if request.method == "POST" else request.GET
    try:
        ids = participation.link_ids(study, params)
    except ValueError as error:
        context = {"study": study, "platform": platform, "problem": error}
        return render(request, "survey/bad_link.html", context, status=400)
    reading = params.get("reading") == "1"
    held = participation.held_by_browser(study, request.COOKIES)
    context = {"study": study, "platform": platform, "reading": reading, "held": held}
    if request.method == "POST" and held is not None and "afresh" not in request.POST:
        return redirect(participation.resume_url(held))
    # A closed study, or one not ready (a setting its texts need, say), takes no one new.
    if held is None and not study_status(study, study.has_active).takes_newcomers:
        return render(request, "survey/closed.html", context, status=200)
    if platform.previewing(ids):
        return preview(request, study, context)
    if request.method == "POST":
        try:
            participant = participation.enter(study, ids, reading_mode=reading, leaving=held)
        except StudyClosed:
            return render(request, "survey/closed.html", context, status=409)
        except StartedElsewhere as started:
            if held is not None and started.participant.pk == held.pk:
                return redirect(participation.resume_url(held))
            context["earlier"] = started.participant
            return render(request, "survey/started_elsewhere.html", context, status=409)
        return remember(moved_on(request, participant), participant)
    if held is None and (taken := participation.earlier(study, ids)) is not None:
        # Said before the information sheet is read, not after.
        context["earlier"] = taken
        return render(request, "survey/started_elsewhere.html", context)
    given = [p.name for p in platform.parameters(study)]
    hidden = {name: request.GET[name] for name in given if request.GET.get(name)}
    toggle = urlencode(hidden | {"reading": "0" if reading else "1"})
    return render(
        request,
        "survey/entry.html",
        context
        | {
            "sheet": document(study.information_sheet, study),
            "hidden": hidden,
            "reading_link": f"?{toggle}",
            "afresh": held is not None and participation.may_start_afresh(study, held, ids),
        },
    )


def preview(request, study, context):
    """What taking part is like, before the platform lets the person take part: the
    information sheet and the practice pair, read-only. Nothing is stored, so an accepted
    preview leaves no participation behind."""
    item = participation.sample_item(study)
    unanswered = dict.fromkeys(participation.SCALES)
    return render(
        request,
        "survey/preview.html",
        context
        | {
            "sheet": document(study.information_sheet, study),
            "item": item,
            "language": language_name(item.triple.segment.source_lang),
            "scales": scales(study, unanswered, unanswered, None),
            "marks": marks_question(study, item, None),
        },
        status=409 if request.method == "POST" else 200,
    )


@participant_page()
def resume(request, participant):
    return redirect(participation.resume_url(participant))


@participant_page()
def instructions(request, participant):
    """What the two questions and the ends of their scales mean, before the practice pair."""
    if participant.consent_version is None or participant.status == COMPLETED:
        return redirect(participation.resume_url(participant))
    return instructions_page(request, participant)


def instructions_page(request, participant, here=None):
    study = participant.study
    first = participation.first_position(participant)
    unanswered = dict.fromkeys(participation.SCALES)
    return page(
        request,
        "survey/instructions.html",
        participant,
        instructions=document(study.instructions, study),
        scales=scales(study, unanswered, unanswered, None),
        start=reverse("survey:item", args=[participant.token, first]),
        practice=first == 0,
        here=here,
    )


@participant_page()
def information(request, participant):
    sheet = document(participant.study.information_sheet, participant.study)
    return page(
        request,
        "survey/information.html",
        participant,
        sheet=sheet,
        back=participation.resume_url(participant),
    )


@participant_page()
def consent(request, participant):
    if participant.consent_version is not None:
        return redirect(participation.resume_url(participant))
    study = participant.study
    consent_text = participation.current_consent(study)
    if request.method == "POST" and "decline" in request.POST:
        participation.decline(participant)
        return redirect(reverse("survey:declined") + "?" + urlencode({"study": study.slug}))
    form = ConsentForm(consent_text, request.POST or None)
    if request.method == "POST" and form.is_valid() and form.accepted():
        participation.give_consent(participant, consent_text, share_data=form.shares_data())
        return moved_on(request, participant)
    return consent_page(request, participant, form)


def consent_page(request, participant, form=None, here=None):
    study = participant.study
    return page(
        request,
        "survey/consent.html",
        participant,
        form=ConsentForm(participation.current_consent(study)) if form is None else form,
        intro=document(study.consent_intro, study),
        closing=document(study.consent_closing, study),
        here=here,
    )


def left_study(request, template):
    """After declining or withdrawing: the way back to the crowd platform, if it has one."""
    study = Study.objects.filter(slug=request.GET.get("study", "")).first()
    context = {
        "study": study,
        "platform": platforms.of(study) if study else platforms.PLATFORMS["none"],
        "leaving_url": participation.leaving_url(study) if study else "",
    }
    with in_language(study):
        return allow_frames(render(request, template, context), study)


def declined(request):
    return left_study(request, "survey/declined.html")


@participant_page()
def about(request, participant):
    if participant.consent_version is None or participant.status == COMPLETED:
        return redirect(participation.resume_url(participant))
    adding = "add_language" in request.POST
    if request.method == "POST":
        form = AboutForm(participant.study, request.POST)
        languages = language_formset(participant, request.POST)
        if form.is_valid() and languages.is_valid():
            save_about(participant, form, languages, done=not adding)
            if not adding:
                return moved_on(request, participant)
        if adding:
            languages = language_formset(participant, request.POST, extra_rows=1)
        return about_page(request, participant, form, languages)
    return about_page(request, participant)


def about_page(request, participant, form=None, languages=None, here=None):
    if form is None:
        form = AboutForm(participant.study, initial=AboutForm.initial_for(participant))
        languages = language_formset(participant)
    return page(
        request,
        "survey/about.html",
        participant,
        form=form,
        languages=languages,
        grammar_low=gettext(en.GRAMMAR_LOW),
        grammar_high=gettext(en.GRAMMAR_HIGH),
        languages_question=gettext(en.ABOUT_YOU["languages"])
        % {"language": language_name(participant.study.language)},
        here=here,
    )


def moved_on(request, participant):
    """Where a step's form leads once done (the study link, consent, about you, the final
    check): the step the participant is now at. For the page's script (JSON asked), that step's
    page comes in the reply, which the script shows in place: one request where the redirect
    made two."""
    name, url = participation.resume_step(participant)
    step = STEP_PAGES.get(name) if wants_json(request) else None
    if step is None:
        return redirect(url)
    shown = step(request, participant, here=url)
    return JsonResponse({"next": url, "page": shown.content.decode()})


def scales(study: Study, shown: dict, saved: dict, notes: dict | None, missing=()) -> list[dict]:
    """The two questions as the item page shows them, worded as the study configures;
    `missing` names those the participant must still answer to move on (each then says so)."""
    wording = [
        ("holistic", study.holistic_question, study.holistic_low, study.holistic_high),
        ("order", study.order_question, study.order_low, study.order_high),
    ]
    return [
        {
            "name": name,
            "number": number,
            "question": question,
            "low": low,
            "high": high,
            "note": notes[name] if notes else "",
            "value": shown[name],
            "saved": saved[name],
            "missing": MISSING if name in missing else "",
        }
        for number, (name, question, low, high) in enumerate(wording, start=1)
    ]


def marks_question(study: Study, item, positions, missing=(), practice=False) -> dict | None:
    """The question on the words out of place, in a study that asks it: one box per unit of
    the first sentence (wojdb.core.marks), those of `positions` ticked (() for "none");
    `practice`: with the feedback naming the units out of place."""
    if not study.word_marks:
        return None
    spaced = participation.language_rules(study.language).spaced
    chosen = set(positions or ())
    note, truth = participation.practice_marks(study, item) if practice else ("", frozenset())
    # Written here, not by a template loop: a tenth of the page's time for a long sentence.
    words = format_html_join(
        " " if spaced else "",
        '<label class="mark{}"><input type="checkbox" name="marks" value="{}"{}><span>{}</span>'
        "</label>",
        (
            (
                " truth" if position in truth else "",
                position,
                mark_safe(" checked") if position in chosen else "",
                unit,
            )
            for position, unit in enumerate(participation.units_of(study, item.text))
        ),
    )
    return {
        "words": words,
        "none": positions == (),
        "basis": marks_basis(positions),
        "spaced": spaced,
        "dir": "rtl" if right_to_left(study.language) else "ltr",
        "missing": MISSING if participation.MARKS in missing else "",
        "note": note,
    }


def marks_basis(positions) -> str:
    """The marks as the page keeps them for its next post (`was_marks`; forms.MarksBasis)."""
    if positions is None:
        return ""
    return " ".join(map(str, positions)) or "none"


def incomplete_notice(study: Study):
    return EVERY_ANSWER if study.word_marks else BOTH_ANSWERS


def answer_reply(study: Study, rating, **body) -> dict:
    """What a JSON reply says of a saved rating: its answers (the marks' positions, in a study
    that asks for them)."""
    body |= {"revisions": rating.revisions, "holistic": rating.holistic, "order": rating.order}
    if study.word_marks:
        body[participation.MARKS] = participation.marked_positions(rating.marks)
    return body


def item_page(
    request,
    participant,
    position,
    item,
    rating,
    status=200,
    shown=None,
    notice="",
    feedback=False,
    missing=(),
    shown_marks=None,
    here=None,
):
    """An item page; `shown` (and `shown_marks`) override the saved values (a renewed expired
    page). The practice pair's `feedback` shows what each question asks of it, once answered;
    `missing` marks the questions still to answer before moving on."""
    study = participant.study
    saved = {"holistic": rating.holistic, "order": rating.order}
    answers = [*saved.values()] + ([rating.marks] if study.word_marks else [])
    total = participation.pair_count(participant)
    feedback = feedback and position == 0 and None not in answers
    notes = None
    if feedback:
        holistic, order = participation.practice_notes(study, item)
        notes = {"holistic": holistic, "order": order}
    marks = participation.marked_positions(rating.marks) if shown_marks is None else shown_marks
    return page(
        request,
        "survey/item.html",
        participant,
        status=status,
        item=item,
        position=position,
        practice=position == 0,
        total=total,
        last=position == total,
        language=language_name(item.triple.segment.source_lang),
        scales=scales(study, shown or saved, saved, notes, missing),
        marks=marks_question(study, item, marks, missing, feedback),
        require_both=study.require_both_answers,
        answered=sum(value is not None for value in answers),
        asked=len(answers),
        client_ms=rating.client_ms or 0,
        notice=notice,
        feedback=feedback,
        rating=rating,
        here=here,
    )


def item_expired(request, participant, position):
    """A renewed item page showing what was sent (not saved), with a fresh CSRF token."""
    if wants_json(request):
        return expired(request, participant)
    try:
        item, rating = participation.show(participant, position)
    except Refused as error:
        raise Http404(str(error)) from error
    form = AnswerForm(request.POST)
    shown = shown_marks = None
    if form.is_valid():
        answer = form.answer()
        shown = {
            "holistic": answer.holistic or rating.holistic,
            "order": answer.order or rating.order,
        }
        if answer.marked:
            shown_marks = answer.marks
    return item_page(
        request, participant, position, item, rating, 403, shown, EXPIRED, shown_marks=shown_marks
    )


@participant_page(on_expired=item_expired, answers=True)
def item(request, participant, position):
    """Show one pair (or the sample at position 0); a post saves its answers."""
    if participant.consent_version is None:
        return redirect(participation.resume_url(participant))
    if request.method == "POST":
        return save_item(request, participant, position)
    if participant.status == COMPLETED:
        return redirect("survey:done", participant.token)
    try:
        return pair_page(
            request,
            participant,
            position,
            feedback=participation.FEEDBACK in request.GET,
            # After a refused move on (`incomplete`): the questions still unanswered, as saved.
            unanswered=UNANSWERED in request.GET,
        )
    except Refused as error:
        raise Http404(str(error)) from error


def pair_page(request, participant, position, feedback=False, unanswered=False, here=None):
    """The page of the pair at `position`, which the participant is now on (Refused where it is
    not theirs)."""
    item, rating = participation.show(participant, position)
    participant.position = position
    missing = []
    if unanswered:
        missing = participation.unanswered_to_move_on(participant.study, rating, "next")
    notice = incomplete_notice(participant.study) if missing else ""
    return item_page(
        request,
        participant,
        position,
        item,
        rating,
        feedback=feedback,
        notice=notice,
        missing=missing,
        here=here,
    )


def next_page(request, participant, move: participation.Move) -> str | None:
    """The page a move on leads to, rendered: a pair's page (another pair, or the practice
    pair's feedback), the final check or the instructions. The page's script shows it in place
    of the one just answered, so that a pair costs one request. None where the page would
    rather say why it cannot be shown."""
    if move.position is None:
        return STEP_PAGES[move.name](request, participant, here=move.url).content.decode()
    here = urlsplit(move.url).path
    try:
        page = pair_page(request, participant, move.position, feedback=move.feedback, here=here)
    except Refused:
        return None  # the page itself then says why
    return page.content.decode()


def save_item(request, participant, position):
    done = reverse("survey:done", args=[participant.token])
    if participant.status == COMPLETED:
        if wants_json(request):
            return JsonResponse(
                {"saved": False, "reason": "completed", "message": FINISHED, "next": done},
                status=409,
            )
        return refuse(request, participant, FINISHED, status=409, back=done)
    form = AnswerForm(request.POST)
    if not form.is_valid():
        return refuse(request, participant, form.problem())
    try:
        saved = participation.save_answer(
            participant, position, form.cleaned_data["item"], form.answer()
        )
    except Refused as error:
        message = gettext("This answer could not be accepted: %(reason)s.")
        return refuse(request, participant, message % {"reason": error})
    rating = saved.rating
    go = form.cleaned_data["go"]
    missing = participation.unanswered_to_move_on(participant.study, rating, go)
    if missing and not saved.conflict:
        return incomplete(request, participant, position, rating, missing)
    if saved.conflict:
        if wants_json(request):
            body = {
                "saved": False,
                "reason": "conflict",
                "message": CONFLICT,
                "holistic": rating.holistic,
                "order": rating.order,
            }
            if participant.study.word_marks:
                body[participation.MARKS] = participation.marked_positions(rating.marks)
            return JsonResponse(body, status=409)
        item = participation.item_at(participant, position)
        return item_page(request, participant, position, item, rating, 409, notice=CONFLICT)
    move = participation.neighbour(participant, position, go)
    if wants_json(request):
        body = answer_reply(participant.study, rating, saved=True) | {"next": move.url}
        if go == "stay":  # a background save: the page may move on later without posting
            body["moves"] = participation.moves(participant, position, rating)
        elif shown := next_page(request, participant, move):
            body["page"] = shown
        return JsonResponse(body)
    return redirect(move.url)


def incomplete(request, participant, position, rating, missing):
    """A pair left with a question unanswered, where the study asks for both: what was given
    is saved, and the participant stays on the pair, told which question is missing (the page
    again, without JavaScript, so that reloading it posts nothing)."""
    if wants_json(request):
        message = str(incomplete_notice(participant.study))
        body = {"saved": True, "reason": "incomplete", "message": message, "missing": missing}
        return JsonResponse(answer_reply(participant.study, rating, **body), status=400)
    here = reverse("survey:item", args=[participant.token, position])
    return redirect(f"{here}?{UNANSWERED}=1")


@participant_page()
def review(request, participant):
    """The final check: unanswered questions listed, then "Finish"."""
    if participant.consent_version is None or participant.status == COMPLETED:
        return redirect(participation.resume_url(participant))
    if request.method == "POST":
        participation.finish(participant)
        return moved_on(request, participant)
    return review_page(request, participant)


def review_page(request, participant, here=None):
    progress = participation.progress(participant)
    participant.position = progress.total + 1
    return page(request, "survey/review.html", participant, progress=progress, here=here)


@participant_page()
def done(request, participant):
    """The debriefing, then the completion code and the way back to a crowd platform: a button
    the participant presses once they have read it (nothing moves on by itself)."""
    if participant.status != COMPLETED:
        return redirect(participation.resume_url(participant))
    return done_page(request, participant)


def done_page(request, participant, here=None):
    study = participant.study
    return page(
        request,
        "survey/done.html",
        participant,
        debriefing=document(study.debriefing, study),
        hand_in=participation.hand_in(participant),
        here=here,
    )


#: The pages a form's post can bring in its reply (`moved_on`, `next_page`), by URL name.
STEP_PAGES = {
    "consent": consent_page,
    "about": about_page,
    "instructions": instructions_page,
    "review": review_page,
    "done": done_page,
}


@participant_page()
def withdraw(request, participant):
    if request.method == "POST":
        slug = participant.study.slug
        with record.acting_as(record.PARTICIPANT):
            participation.withdraw(participant)
        return redirect(reverse("survey:withdrawn") + "?" + urlencode({"study": slug}))
    data_use = document(participant.study.data_use, participant.study)
    return page(request, "survey/withdraw.html", participant, data_use=data_use)


def withdrawn(request):
    return left_study(request, "survey/withdrawn.html")


@participant_page()
def reading(request, participant):
    """Switch the larger, more widely spaced text on or off, then go back to the page."""
    if request.method == "POST":
        participant.reading_mode = not participant.reading_mode
        participant.save(update_fields=["reading_mode"])
    back = participation.own_page(participant, request.POST.get("next", ""))
    return redirect(back or participation.resume_url(participant))
