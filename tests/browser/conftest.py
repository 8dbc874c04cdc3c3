"""Shared fixtures for browser tests: Playwright (Python) driving Debian's chromium.

No browser is ever downloaded: tests use /usr/bin/chromium (`apt-get install chromium`;
bin/test installs it). Mark browser tests `@pytest.mark.browser`, serve the site with
pytest-django's `live_server`, and let the server thread see the test's data with
`@pytest.mark.django_db(transaction=True)`.

Fixtures
- `browser` (session): one headless chromium for the whole run.
- `page`: a new browser context and page per test, at desktop size (1280 × 800) unless the test
  is marked `@pytest.mark.viewport(width, height)`; closed after the test. Page actions and
  `expect` assertions wait up to 30 s (TIMEOUT_MS).
- `screenshot`: `screenshot(page, name)` saves a full-page PNG as
  test-artifacts/screenshots/<name>.png and returns its path.
- `log_in_as(page, live_server, user)`: gives the page the user's session cookie (no login form).

Example:

    pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

    def test_home(live_server, page, screenshot):
        page.goto(live_server.url)
        screenshot(page, "home")
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
TIMEOUT_MS = 30_000  # generous: CI machines are small and shared

expect.set_options(timeout=TIMEOUT_MS)


def pytest_configure(config):
    config.addinivalue_line("markers", "viewport(width, height): page size for the `page` fixture")


@pytest.fixture(scope="session")
def browser():
    """One headless chromium for the session.

    Playwright's synchronous API runs an event loop in the test thread, which Django takes for
    an async context and so refuses database queries; the tests' own queries are synchronous,
    so that check is lifted while the browser lives.
    """
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, request):
    marker = request.node.get_closest_marker("viewport")
    viewport = {"width": marker.args[0], "height": marker.args[1]} if marker else DESKTOP
    context = browser.new_context(viewport=viewport, locale="en-GB")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    yield page
    context.close()


def save_screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture
def screenshot():
    return save_screenshot


@pytest.fixture
def log_in_as():
    def log_in(page, live_server, user) -> None:
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME]
        page.context.add_cookies(
            [{"name": cookie.key, "value": cookie.value, "url": live_server.url}]
        )

    return log_in


def put_aside(page):
    """The page's tab hidden and shown again, as when the participant switches tabs: the item
    page's script sends any answer waiting to be saved at once."""
    page.evaluate(
        """() => {
          Object.defineProperty(document, "visibilityState", {value: "hidden", configurable: true});
          document.dispatchEvent(new Event("visibilitychange"));
          delete document.visibilityState;  // the document's own again: visible
          document.dispatchEvent(new Event("visibilitychange"));
        }"""
    )
