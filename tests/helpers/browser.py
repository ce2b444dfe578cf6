"""What the browser tests do on a page: submit, find a candidate, wait for time to act in a round."""

from __future__ import annotations

import uuid

from playwright.sync_api import Locator, Page, expect

DESKTOP = {"width": 1280, "height": 800}
EVENT_WAIT_MS = 8_000  # an event crosses Redis and two sockets in well under this, even on a busy machine
CLIP_WAIT_MS = 150_000  # a round closes, the tiny model renders on a shared CPU, then 10 s on air


def tag() -> str:
    return uuid.uuid4().hex[:6]


def wait_for_time_to_act(page: Page, seconds: float = 7) -> None:
    """Wait for an open round with at least `seconds` left, so an action lands in the round we watch."""
    page.wait_for_function(
        """(ms) => {
          const s = window.yolive.state;
          if (!s.round || s.round.state !== "open") return false;
          return Date.parse(s.round.ends_at) - (Date.now() + s.clockOffsetMs) > ms;
        }""",
        arg=seconds * 1000,
        timeout=40_000,
    )


def submit(page: Page, text: str) -> None:
    page.fill("#prompt-text", text)
    page.click("#prompt-submit")


def candidate(page: Page, text: str) -> Locator:
    return page.locator("#candidates li.candidate", has_text=text)


def submit_seen_by(author: Page, other: Page, text: str) -> None:
    """Submit from one browser and wait until another lists the prompt as a candidate."""
    submit(author, text)
    expect(candidate(other, text)).to_be_visible(timeout=EVENT_WAIT_MS)


def submit_held(author: Page, moderator_page: Page, text: str) -> Locator:
    """Submit a prompt the gate holds and wait for its card on the moderator's panel; returns the card."""
    submit(author, text)
    card = moderator_page.locator("#held .held-card", has_text=text)
    expect(card).to_be_visible(timeout=EVENT_WAIT_MS)
    return card
