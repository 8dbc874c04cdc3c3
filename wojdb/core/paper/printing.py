"""Typesetting paper questionnaires with reportlab, recording every box in a Layout.

A questionnaire's copies share one layout: the flow is deterministic and only the page codes
differ, so each copy is typeset by the same code and the first run's boxes describe them all.
Every printed string comes in with the Questionnaire: the study's texts and the fixed `Wording`,
which the glue translates into the study's language. Boxes are placed after the text is measured,
so a longer translation moves them and the layout records where they went.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from xml.sax.saxutils import escape

import matplotlib
import segno
from reportlab.lib.colors import Color, black
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

from wojdb.core.paper.layout import (
    BOX_SIZE,
    CONTENT_BOTTOM,
    CONTENT_SIDE,
    CONTENT_TOP,
    MARKER_SIZE,
    MM,
    PAPER_SIZES,
    Box,
    Layout,
    PageCode,
    TextField,
    marker_centres,
    qr_box,
)
from wojdb.core.texts import N_

# DejaVu Sans, shipped with matplotlib (already a dependency), covers the Latin, Greek and
# Cyrillic letters of WMT sentences that the PDF base fonts lack (ř, ě, ō, ...).
SANS, SANS_BOLD, SANS_ITALIC = "WojSans", "WojSans-Bold", "WojSans-Oblique"
_FONTS = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
for _name, _file in (
    (SANS, "DejaVuSans.ttf"),
    (SANS_BOLD, "DejaVuSans-Bold.ttf"),
    (SANS_ITALIC, "DejaVuSans-Oblique.ttf"),
):
    pdfmetrics.registerFont(TTFont(_name, _FONTS / _file))
pdfmetrics.registerFontFamily(SANS, normal=SANS, bold=SANS_BOLD, italic=SANS_ITALIC)

BODY = ParagraphStyle("body", fontName=SANS, fontSize=9.5, leading=12)
SMALL = ParagraphStyle("small", parent=BODY, fontSize=8, leading=10)
NOTE = ParagraphStyle("note", parent=SMALL, fontName=SANS_ITALIC)
LABEL = ParagraphStyle("label", parent=SMALL, textColor=Color(0.3, 0.3, 0.3))
QUESTION = ParagraphStyle("question", parent=BODY, fontName=SANS_BOLD)
SENTENCE = ParagraphStyle("sentence", parent=BODY, fontSize=10.5, leading=13.5)
HEADING = ParagraphStyle("heading", parent=BODY, fontName=SANS_BOLD, fontSize=13, leading=17)
TITLE = ParagraphStyle("title", parent=HEADING, fontSize=17, leading=22)
END_LOW = ParagraphStyle("end_low", parent=SMALL, alignment=TA_RIGHT)
BOX_LINE = 0.9  # points; the reader measures only inside the line
BOX_PITCH = 9 * MM  # between box origins in a scale
TEXT_FIELD_GREY = Color(0.55, 0.55, 0.55)


@dataclass(frozen=True)
class Wording:
    """The fixed strings of every questionnaire: English message ids (marked for the catalogues),
    translated as a whole by `translated`."""

    page: str = N_("page %(page)s")
    pdf_title: str = N_("%(title)s — questionnaire %(number)s, copy %(copy)s")
    read_by_computer: str = N_(
        "This questionnaire is automatically read by a computer program. Please use a pen when "
        "filling in your answers."
    )
    how_to_answer: str = N_("How to answer")
    select: str = N_("Select an answer: check its box")
    cancel: str = N_("Cancel an answer, to change it: fill its box")
    marking: str = N_(
        "Use a dark pen. Check one box per question. To change an answer, fill the box you "
        "checked completely, then check another. Marks outside the boxes are ignored."
    )
    about: str = N_("About you")
    consent: str = N_("Consent form")
    consent_lead: str = N_("Please check the box beside each statement you agree to.")
    practice: str = N_("Sample sentence")
    practice_pair: str = N_("Sample")
    pairs: str = N_("Sentence pairs")
    pair: str = N_("Pair %(position)s")
    translated_from: str = N_("translated from %(language)s")
    machine: str = N_("Machine-produced translation:")
    human: str = N_("Human-produced translation:")

    def translated(self, gettext) -> Wording:
        return Wording(**{f.name: gettext(getattr(self, f.name)) for f in fields(self)})


@dataclass(frozen=True)
class Pair:
    position: int  # 1-based in the questionnaire; 0 for the practice sample
    language: str  # the source language's name
    machine: str
    human: str


@dataclass(frozen=True)
class Scale:
    name: str  # "holistic" or "word_order", the field suffix
    question: str
    low: str
    high: str
    note: str = ""


@dataclass(frozen=True)
class Choice:
    """An about-you question answered by boxes (`options`: value, label) and/or in writing."""

    name: str
    question: str
    options: tuple[tuple[str, str], ...] = ()
    text_label: str = ""  # a write-in area below the boxes, with this label
    text_name: str = ""  # its field name (defaults to `name`)
    text_height: float = 9 * MM
    text_width: float = 0.0  # 0: the full content width
    scale: tuple[str, str] | None = None  # a 1-5 scale with these end labels instead of options


@dataclass
class Questionnaire:
    """Everything printed on one questionnaire, as plain text from the study."""

    study: str  # slug
    number: int
    title: str
    researcher: str
    paper: str
    scales: tuple[Scale, Scale]
    about: list[Choice]
    consent_statements: list[str]
    consent_closing: str
    practice: Pair | None
    practice_notes: tuple[str, str]
    practice_lead: str
    pairs: list[Pair] = field(default_factory=list)
    wording: Wording = Wording()


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(text).replace("\n", "<br/>"), style)


class _Writer:
    """A top-down flow on a reportlab canvas that records boxes in layout coordinates."""

    def __init__(
        self,
        canvas: Canvas,
        paper: tuple[float, float],
        code: PageCode,
        layout: Layout,
        wording: Wording,
    ):
        self.c, self.paper, self.code, self.layout = canvas, paper, code, layout
        self.wording = wording
        self.width = paper[0] - 2 * CONTENT_SIDE
        self.page = 0
        self.y = 0.0
        self.new_page()

    # Page furniture ------------------------------------------------------------------------
    def new_page(self):
        if self.page:
            self.c.showPage()
        self.page += 1
        self.y = CONTENT_TOP
        w, h = self.paper
        self.c.setFillColor(black)
        for cx, cy in marker_centres(self.paper):
            self.c.rect(
                cx - MARKER_SIZE / 2, h - cy - MARKER_SIZE / 2, MARKER_SIZE, MARKER_SIZE, 0, 1
            )
        code = PageCode(self.code.study, self.code.questionnaire, self.code.copy, self.page)
        self._qr(code.text())
        self.c.setFont(SANS, 7)
        qx, qy, qw, qh = qr_box(self.paper)
        self.c.drawCentredString(w / 2, h - (qy + qh) - 8, code.text())
        self.c.drawRightString(
            w - CONTENT_SIDE, h - (qy + qh) - 8, self.wording.page % {"page": self.page}
        )

    def _qr(self, text: str):
        qr = segno.make(text, error="q", micro=False)
        matrix = list(qr.matrix)
        x0, y0, size, _ = qr_box(self.paper)
        module = size / len(matrix)
        h = self.paper[1]
        path = self.c.beginPath()
        for row, bits in enumerate(matrix):
            col = 0
            while col < len(bits):
                if bits[col]:
                    start = col
                    while col < len(bits) and bits[col]:
                        col += 1
                    path.rect(
                        x0 + start * module,
                        h - (y0 + (row + 1) * module),
                        (col - start) * module,
                        module,
                    )
                else:
                    col += 1
        self.c.drawPath(path, stroke=0, fill=1)

    # Flow ------------------------------------------------------------------------------------
    def room(self) -> float:
        return self.paper[1] - CONTENT_BOTTOM - self.y

    def need(self, height: float):
        if height > self.room():
            self.new_page()

    def gap(self, height: float):
        self.y += height

    def height_of(self, para: Paragraph, width: float | None = None) -> float:
        return para.wrap(width or self.width, self.paper[1])[1]

    def draw(self, para: Paragraph, x: float = 0.0, width: float | None = None) -> float:
        """Draw at the cursor (x from the content's left edge); returns the height used."""
        height = self.height_of(para, width)
        para.drawOn(self.c, CONTENT_SIDE + x, self.paper[1] - self.y - height)
        return height

    def flow(self, para: Paragraph, after: float = 2 * MM):
        self.need(self.height_of(para))
        self.y += self.draw(para) + after

    def box(self, x: float, y: float, field_name: str, value: str, filled: bool = False):
        """A check box with its top-left corner at content x, page y."""
        left = CONTENT_SIDE + x
        self.c.setLineWidth(BOX_LINE)
        self.c.rect(left, self.paper[1] - y - BOX_SIZE, BOX_SIZE, BOX_SIZE, 1, 1 if filled else 0)
        if field_name:
            self.layout.boxes.append(Box(self.page, left, y, BOX_SIZE, BOX_SIZE, field_name, value))

    def text_field(self, label: str, field_name: str, height: float, width: float = 0.0):
        width = width or self.width
        label_para = _p(label, LABEL)
        label_h = self.height_of(label_para)
        self.need(label_h + height + 3 * MM)
        self.y += self.draw(label_para) + 1 * MM
        self.c.setStrokeColor(TEXT_FIELD_GREY)
        self.c.setLineWidth(0.6)
        self.c.rect(CONTENT_SIDE, self.paper[1] - self.y - height, width, height, 1, 0)
        self.c.setStrokeColor(black)
        self.layout.text_fields.append(
            TextField(self.page, CONTENT_SIDE, self.y, width, height, field_name)
        )
        self.y += height + 3 * MM

    def options(self, field_name: str, options: tuple[tuple[str, str], ...]):
        """Boxes in a wrapping row, each followed by its label."""
        x = 0.0
        self.need(BOX_SIZE + 2 * MM)
        for value, label in options:
            width = BOX_SIZE + 2 * MM + self.c.stringWidth(label, SANS, 9.5) + 7 * MM
            if x and x + width > self.width:
                self.y += BOX_SIZE + 3 * MM
                self.need(BOX_SIZE + 2 * MM)
                x = 0.0
            self.box(x, self.y, field_name, value)
            self.c.setFont(SANS, 9.5)
            self.c.drawString(
                CONTENT_SIDE + x + BOX_SIZE + 2 * MM, self.paper[1] - self.y - BOX_SIZE + 1.2, label
            )
            x += width
        self.y += BOX_SIZE + 3 * MM

    def scale_row(self, field_name: str, low: str, high: str, x: float = 0.0) -> float:
        """Five boxes numbered 1-5 between the end labels, at the cursor; returns its height."""
        end = self.END
        top = self.y + 3.2 * MM  # room for the numbers above the boxes
        low_para = _p(low, END_LOW)
        lh = low_para.wrap(end - 2 * MM, 100)[1]
        low_para.drawOn(self.c, CONTENT_SIDE + x, self.paper[1] - top - BOX_SIZE / 2 - lh / 2)
        self.c.setFont(SANS, 7)
        for n in range(5):
            bx = x + end + n * BOX_PITCH
            self.c.drawCentredString(
                CONTENT_SIDE + bx + BOX_SIZE / 2, self.paper[1] - top + 1.2 * MM, str(n + 1)
            )
            self.box(bx, top, field_name, str(n + 1))
        high_para = _p(high, SMALL)
        hh = high_para.wrap(end - 2 * MM, 100)[1]
        high_para.drawOn(
            self.c,
            CONTENT_SIDE + x + end + 4 * BOX_PITCH + BOX_SIZE + 2 * MM,
            self.paper[1] - top - BOX_SIZE / 2 - hh / 2,
        )
        return 3.2 * MM + BOX_SIZE + max(0.0, max(lh, hh) - BOX_SIZE) / 2

    END = 21 * MM  # each end label's column
    SCALE_WIDTH = END * 2 + 4 * BOX_PITCH + BOX_SIZE

    def question_with_scale(self, number: str, scale: Scale, field_name: str, with_note: bool):
        """The question on the left, its scale on the right (the note, if any, below)."""
        text_width = self.width - self.SCALE_WIDTH - 2 * MM
        question = _p(f"{number} {scale.question}", QUESTION if with_note else BODY)
        qh = self.height_of(question, text_width)
        row = max(qh, 3.2 * MM + BOX_SIZE + 1 * MM)
        note = _p(scale.note, NOTE) if with_note and scale.note else None
        nh = self.height_of(note) + 1 * MM if note else 0
        self.need(row + nh + 2 * MM)
        self.draw(question, 0, text_width)
        self.scale_row(field_name, scale.low, scale.high, x=self.width - self.SCALE_WIDTH)
        self.y += row
        if note:
            self.y += self.draw(note) + 1 * MM
        self.y += 1.5 * MM


def _pair_block(w: _Writer, doc: Questionnaire, pair: Pair, prefix: str, heading: str, notes):
    label_width = 30 * MM
    origin = escape(doc.wording.translated_from % {"language": pair.language})
    heading = Paragraph(
        f"{escape(heading)} <font color='#555555' size='8'>{origin}</font>", QUESTION
    )
    rows = [
        (_p(doc.wording.machine, LABEL), _p(pair.machine, SENTENCE)),
        (_p(doc.wording.human, LABEL), _p(pair.human, SENTENCE)),
    ]
    heights = [
        max(w.height_of(label, label_width - 2 * MM), w.height_of(text, w.width - label_width))
        for label, text in rows
    ]
    scale_h = 2 * (3.2 * MM + BOX_SIZE + 4 * MM)
    w.need(w.height_of(heading) + sum(heights) + 4 * MM + scale_h)
    w.y += w.draw(heading) + 1 * MM
    for (label, text), height in zip(rows, heights, strict=True):
        w.draw(label, 0, label_width - 2 * MM)
        w.draw(text, label_width, w.width - label_width)
        w.y += height + 1 * MM
    for n, scale in enumerate(doc.scales, start=1):
        shown = Scale(
            scale.name, scale.question, scale.low, scale.high, notes[n - 1] if notes else ""
        )
        w.question_with_scale(f"{n}.", shown, f"{prefix}.{scale.name}", with_note=bool(notes))
    w.c.setLineWidth(0.3)
    w.c.setStrokeColor(TEXT_FIELD_GREY)
    w.c.line(CONTENT_SIDE, w.paper[1] - w.y, CONTENT_SIDE + w.width, w.paper[1] - w.y)
    w.c.setStrokeColor(black)
    w.y += 2.5 * MM


def _legend(w: _Writer):
    """Check a box to select; fill it to cancel (SDAPS's "checkcorrect"), printed as examples."""
    wording = w.wording
    w.flow(_p(wording.how_to_answer, QUESTION), 1.5 * MM)
    w.need(2 * BOX_SIZE + 6 * MM)
    c, h = w.c, w.paper[1]
    c.setFont(SANS, 9.5)
    select_width = c.stringWidth(wording.select, SANS, 9.5) + 3 * MM
    cancel_width = c.stringWidth(wording.cancel, SANS, 9.5) + 3 * MM
    c.drawString(CONTENT_SIDE, h - w.y - BOX_SIZE + 1.2, wording.select)
    w.box(select_width, w.y, "", "")
    left, top = CONTENT_SIDE + select_width, h - w.y
    c.setLineWidth(1.4)
    c.line(left + 1.0 * MM, top - 2.8 * MM, left + 2.1 * MM, top - 4.1 * MM)
    c.line(left + 2.1 * MM, top - 4.1 * MM, left + 4.2 * MM, top - 0.9 * MM)
    x = select_width + BOX_SIZE + 12 * MM
    if x + cancel_width + BOX_SIZE > w.width:  # a longer translation: the second example below
        x = 0.0
        w.y += BOX_SIZE + 2 * MM
    c.drawString(CONTENT_SIDE + x, h - w.y - BOX_SIZE + 1.2, wording.cancel)
    w.box(x + cancel_width, w.y, "", "", filled=True)
    w.y += BOX_SIZE + 2 * MM
    w.flow(_p(wording.marking, SMALL), 4 * MM)


def _about(w: _Writer, questions: list[Choice]):
    w.flow(_p(f"1 {w.wording.about}", HEADING), 2 * MM)
    for n, q in enumerate(questions, start=1):
        question = _p(f"1.{n} {q.question}", BODY)
        body = BOX_SIZE + 4 * MM if q.options or q.scale else 0.0
        if q.text_label or not body:
            body += w.height_of(_p(q.text_label, LABEL)) + q.text_height + 4 * MM
        w.need(w.height_of(question) + body + 1.5 * MM)
        w.y += w.draw(question) + 1.5 * MM
        if q.scale:
            w.need(3.2 * MM + BOX_SIZE + 2 * MM)
            w.y += w.scale_row(f"about.{q.name}", *q.scale) + 3 * MM
        elif q.options:
            w.options(f"about.{q.name}", q.options)
        if q.text_label or not (q.options or q.scale):
            w.text_field(
                q.text_label, f"about.{q.text_name or q.name}", q.text_height, q.text_width
            )
    w.gap(2 * MM)


def _consent(w: _Writer, statements: list[str], closing: str):
    w.flow(_p(f"2 {w.wording.consent}", HEADING), 1 * MM)
    w.flow(_p(w.wording.consent_lead, SMALL), 2 * MM)
    indent = BOX_SIZE + 4 * MM
    for n, statement in enumerate(statements, start=1):
        para = _p(statement, BODY)
        height = max(w.height_of(para, w.width - indent), BOX_SIZE)
        w.need(height + 2.5 * MM)
        w.box(0, w.y, f"consent.{n}", "agree")
        w.draw(para, indent, w.width - indent)
        w.y += height + 2.5 * MM
    w.flow(_p(closing.strip(), SMALL), 4 * MM)


def typeset(doc: Questionnaire, copy: str, path: Path | None) -> tuple[Layout, bytes]:
    """One copy as a PDF (written to `path` if given) and the layout of its boxes."""
    paper = PAPER_SIZES[doc.paper]
    layout = Layout(study=doc.study, questionnaire=doc.number, paper=paper, pages=0)
    canvas = Canvas(str(path) if path else None, pagesize=paper, pageCompression=1)
    wording = doc.wording
    canvas.setTitle(wording.pdf_title % {"title": doc.title, "number": doc.number, "copy": copy})
    canvas.setAuthor(doc.researcher)
    w = _Writer(canvas, paper, PageCode(doc.study, doc.number, copy, 1), layout, wording)
    if doc.researcher:
        w.flow(_p(doc.researcher, SMALL), 1 * MM)
    w.flow(_p(doc.title, TITLE), 2 * MM)
    w.flow(_p(wording.read_by_computer, BODY), 3 * MM)
    _legend(w)
    _about(w, doc.about)
    _consent(w, doc.consent_statements, doc.consent_closing)
    if doc.practice:
        w.flow(_p(f"3 {wording.practice}", HEADING), 1 * MM)
        w.flow(_p(doc.practice_lead, SMALL), 3 * MM)
        _pair_block(w, doc, doc.practice, "practice", wording.practice_pair, doc.practice_notes)
    w.need(60 * MM)  # the heading stays with the first pair
    w.flow(_p(f"4 {wording.pairs}", HEADING), 2 * MM)
    for pair in doc.pairs:
        heading = wording.pair % {"position": pair.position}
        _pair_block(w, doc, pair, f"pair-{pair.position}", heading, None)
    canvas.showPage()
    layout.pages = w.page
    if path:
        canvas.save()
        return layout, b""
    return layout, canvas.getpdfdata()


def print_copies(doc: Questionnaire, copies: list[str], out: Path, progress=None) -> Layout:
    """Write one PDF per copy id into `out` and return the shared layout (with its copies)."""
    layout = None
    for copy in copies:
        name = f"q{doc.number}-{copy}.pdf"
        this, _ = typeset(doc, copy, out / name)
        layout = layout or this
        layout.copies.append({"id": copy, "file": name})
        if progress:
            progress()
    return layout


def print_document(title: str, blocks: list[tuple[str, str]], paper: str, path: Path) -> None:
    """A plain document (information sheet, debriefing): ("h", heading) / ("p", text) blocks."""
    story = [_p(title, TITLE), Spacer(1, 4 * MM)]
    for kind, text in blocks:
        if kind == "h":
            story += [Spacer(1, 2 * MM), _p(text, QUESTION)]
        else:
            story += [_p(text, BODY), Spacer(1, 2 * MM)]
    SimpleDocTemplate(
        str(path),
        pagesize=PAPER_SIZES[paper],
        leftMargin=CONTENT_SIDE,
        rightMargin=CONTENT_SIDE,
        topMargin=CONTENT_TOP,
        bottomMargin=CONTENT_TOP,
        title=title,
    ).build(story)
