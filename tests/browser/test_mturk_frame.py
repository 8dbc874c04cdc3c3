"""An MTurk HIT in Debian's chromium, in a real frame: a stand-in for MTurk on another local
port shows the study link in an iframe, first as a preview (assignmentId
ASSIGNMENT_ID_NOT_AVAILABLE), which shows the information sheet and a pair that cannot be
answered and stores nothing, then accepted with the assignment's ids; the worker goes through
the whole study in the frame and hands the HIT in to the stand-in's externalSubmit, which must
receive the assignment's id and the completion code.

The stand-in's origin is the only one allowed (WOJDB_MTURK_HOSTS). On 127.0.0.1 it is another
site than the study's localhost: the browser withholds the study's cookies in the frame, as in
MTurk's real one. On localhost it is the same site. Either way the accepted HIT is the one
participation: the preview held nothing.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlencode

import pytest
from playwright.sync_api import expect

from survey.models import Participant, PlatformIdentity
from tests.factories import make_study
from wojdb.core.texts import en

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PAIRS = 2

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


class StandIn(BaseHTTPRequestHandler):
    """MTurk's part: the HIT page framing the study link, and the externalSubmit address."""

    study_url = ""
    handed_in: list[dict[str, list[str]]] = []

    def do_GET(self):
        query = self.path.partition("?")[2]
        body = (
            "<!doctype html><title>HIT</title><h1>A HIT on MTurk</h1>"
            f'<iframe title="HIT" src="{self.study_url}?{query}" width="1100" height="700">'
            "</iframe>"
        )
        self.answer(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        if self.path == "/mturk/externalSubmit":
            self.handed_in.append(parse_qs(self.rfile.read(length).decode()))
        self.answer("<!doctype html><title>Submitted</title><h1>HIT submitted</h1>")

    def answer(self, body: str):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def stand_in(request):
    """The stand-in on a free port of `request.param` ("127.0.0.1" or "localhost")."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    StandIn.handed_in = []
    yield f"http://{request.param}:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def heading(frame):
    return frame.get_by_role("heading", level=1)


def answer(frame, holistic, order):
    for name, value in (("holistic", holistic), ("order", order)):
        frame.locator(f"label[for='{name}-{value}']").click()
    expect(frame.locator("[data-save-state]")).to_have_text("Saved.")


@pytest.mark.parametrize(
    "stand_in", ["127.0.0.1", "localhost"], ids=["cross-site", "same-site"], indirect=True
)
def test_preview_accept_and_hand_in_a_hit_in_mturks_frame(browser, live_server, settings, stand_in):
    settings.WOJDB_MTURK_HOSTS = (stand_in,)
    study = make_study(questionnaires=1, items=PAIRS, platform="mturk")
    study.consent_texts.all().delete()  # the default statements
    StandIn.study_url = f"{live_server.url}/s/{study.slug}/"
    context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    frame = page.frame_locator("iframe")

    preview = {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "H1"}
    page.goto(f"{stand_in}/hit?{urlencode(preview)}")
    expect(heading(frame)).to_have_text("Preview of the study")
    expect(frame.get_by_text("Accept the HIT to begin.").first).to_be_visible()
    expect(frame.get_by_role("heading", name="Participant Information Sheet")).to_be_visible()
    expect(frame.locator("[data-sample-pair] .sentence")).to_have_count(2)
    expect(frame.locator("[data-sample-pair] input[type=radio]").first).to_be_disabled()
    expect(frame.get_by_role("button")).to_have_count(0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    host = stand_in.split(":")[1][2:]
    page.screenshot(path=str(SCREENSHOTS / f"mturk-frame-preview-{host}.png"))
    sample = frame.locator("[data-sample-pair]")
    sample.screenshot(path=str(SCREENSHOTS / f"mturk-frame-preview-pair-{host}.png"))
    assert not Participant.objects.exists()

    accepted = preview | {"assignmentId": "A7", "workerId": "W1", "turkSubmitTo": stand_in}
    page.goto(f"{stand_in}/hit?{urlencode(accepted)}")
    expect(heading(frame)).to_have_text("Participant Information Sheet")
    frame.get_by_role("button", name="Continue to the consent form").click()
    expect(heading(frame)).to_contain_text("Participant Consent Form")
    for number, statement in enumerate(en.CONSENT_STATEMENTS, start=1):
        frame.get_by_role("group", name=f"{number} {statement}").get_by_label("Yes").check()
    frame.get_by_role("button", name="I consent — continue").click()

    expect(heading(frame)).to_have_text("About you")
    frame.get_by_role("button", name="Continue", exact=True).click()
    expect(heading(frame)).to_have_text("Instructions")
    frame.get_by_role("link", name="Start the practice pair").click()
    expect(heading(frame)).to_have_text("Practice pair")
    answer(frame, 4, 2)
    frame.get_by_role("button", name="Check my answers").click()
    frame.get_by_role("button", name="Start pair 1").click()
    for n in range(1, PAIRS + 1):
        expect(heading(frame)).to_have_text(f"Pair {n} of {PAIRS}")
        answer(frame, 5, 4)
        frame.get_by_role("button", name="Next: finish" if n == PAIRS else "Next").click()
    expect(heading(frame)).to_have_text("Before you finish")
    frame.get_by_role("button", name="Finish and submit my answers").click()
    expect(heading(frame)).to_have_text("Thank you — your answers are saved")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"mturk-frame-done-{stand_in.split(':')[1][2:]}.png"))
    frame.get_by_role("button", name="Submit the HIT on MTurk").click()
    expect(heading(frame)).to_have_text("HIT submitted")

    worker = Participant.objects.get(platform__assignment_id="A7")
    assert worker.status == "completed" and worker.completion_code
    assert StandIn.handed_in == [
        {"assignmentId": ["A7"], "completion_code": [worker.completion_code]}
    ]
    identity = PlatformIdentity.objects.get(participant=worker)
    assert (identity.worker_id, identity.submit_to) == ("W1", stand_in)
    assert Participant.objects.count() == 1
    context.close()
