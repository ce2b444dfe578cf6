"""Fixtures for the browser tests: the running channel, a headless Chromium, viewers and a moderator."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from tests.helpers.browser import DESKTOP
from tests.helpers.stack import MODERATOR, Stack
from yolive.moderation.policy.learned.training import shipped as learned_reader

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--autoplay-policy=no-user-gesture-required",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Package scope: the channel (its worker renders a clip every round) and the browser go once the browser
# tests end, so the rest of the suite never runs beside them: on two cores their load once slowed a killed
# web process's restart past the live window in tests/operations/test_supervision.py.
@pytest.fixture(scope="package")
def stack() -> Iterator[Stack]:
    # The gate's learned reader, trained here if this machine has none for this policy (about 20 s) and kept
    # in the suite's cache folder, so that the web process loads it in a second instead of training it while
    # the first prompts wait on a browser's 8 s.
    learned_reader()
    # var/test-N/, as tests/settings.py chose; the default model, so the browsers see what `make run` serves.
    running = Stack(settings.VAR_DIR / "browser-stack", preset="world")
    try:
        running.start()
        running.wait_healthy(need_all=True)
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="package")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    # A browser suite that cannot run fails here, by name, rather than skipping out of sight.
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is not installed: run `make test`, which installs it"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_viewer(browser, stack):  # type: ignore[no-untyped-def]
    """Open the viewer page in a fresh browser context (its own cookie: its own Viewer)."""
    contexts = []

    def open_page(viewport: dict[str, int] | None = None):  # type: ignore[no-untyped-def]
        context = browser.new_context(viewport=viewport or DESKTOP, base_url=stack.url)
        contexts.append(context)
        page = context.new_page()
        page.goto("/")
        page.wait_for_function("window.yolive && window.yolive.state.round !== null", timeout=30_000)
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def moderator_page(browser, stack):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=DESKTOP, base_url=stack.url)
    page = context.new_page()
    page.goto("/admin/login/?next=/mod/")
    page.fill("#id_username", MODERATOR[0])
    page.fill("#id_password", MODERATOR[1])
    page.click("input[type=submit]")
    page.wait_for_url("**/mod/")
    page.wait_for_selector("#connection[data-state=open]")
    yield page
    context.close()


@pytest.fixture
def shots(artifacts_dir: Path) -> Path:
    path = artifacts_dir / "browser"
    path.mkdir(exist_ok=True)
    return path
