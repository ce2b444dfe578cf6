"""The viewer page and the moderation panel in a real headless Chromium, against the running channel."""

from __future__ import annotations

import itertools
import re
import time

import pytest
from playwright.sync_api import expect

from tests.helpers.browser import (
    CLIP_WAIT_MS,
    EVENT_WAIT_MS,
    candidate,
    submit,
    submit_held,
    submit_seen_by,
    tag,
    wait_for_time_to_act,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}
PLAY_SECONDS = 20  # how long the live video must keep advancing


def test_a_prompt_submitted_in_one_browser_appears_in_anothers_list(new_viewer):
    alice, bob = new_viewer(), new_viewer()
    wait_for_time_to_act(alice)
    text = f"a paper boat crossing a puddle {tag()}"
    submit_seen_by(alice, bob, text)
    expect(alice.locator("#prompt-feedback")).to_contain_text("in the running", timeout=EVENT_WAIT_MS)
    expect(alice.locator("#prompt-text")).to_have_value("")


def test_a_vote_moves_the_bar_and_marks_the_voters_own_choice(new_viewer):
    alice, bob = new_viewer(), new_viewer()
    wait_for_time_to_act(alice)
    text = f"a lighthouse keeper finds a glowing map {tag()}"
    submit_seen_by(alice, bob, text)
    bar = candidate(alice, text).locator(".bar-fill")
    assert bar.evaluate("el => el.style.width") in ("", "0%")

    button = candidate(bob, text).locator("button.vote-button")
    button.focus()
    bob.keyboard.press("Enter")  # the keyboard is enough to vote

    expect(candidate(bob, text)).to_have_class(re.compile(r"\bis-my-vote\b"), timeout=EVENT_WAIT_MS)
    expect(candidate(bob, text).locator("button.vote-button")).to_have_attribute("aria-pressed", "true")
    expect(candidate(alice, text).locator(".candidate-votes")).to_have_text("1 vote", timeout=EVENT_WAIT_MS)
    alice.wait_for_function(
        "el => parseFloat(el.style.width) > 0", arg=bar.element_handle(), timeout=EVENT_WAIT_MS
    )


def test_a_held_prompt_reaches_the_moderator_and_once_approved_can_be_voted_for(
    new_viewer, moderator_page, shots
):
    author, voter = new_viewer(), new_viewer()
    wait_for_time_to_act(author, 8)
    text = f"a nude statue in a museum garden {tag()}"  # nudity with no person in it: held for a look
    card = submit_held(author, moderator_page, text)
    expect(author.locator("#prompt-feedback")).to_contain_text("moderator", timeout=EVENT_WAIT_MS)
    expect(candidate(voter, text)).to_have_count(0)
    moderator_page.screenshot(path=str(shots / "mod-panel.png"), full_page=True)
    card.get_by_role("button", name="Approve").click()
    expect(card).to_have_count(0, timeout=EVENT_WAIT_MS)

    expect(candidate(voter, text)).to_be_visible(timeout=EVENT_WAIT_MS)
    expect(author.locator("#my-prompts")).to_contain_text("in the running", timeout=EVENT_WAIT_MS)
    candidate(voter, text).locator("button.vote-button").click()
    expect(candidate(voter, text).locator("button.vote-button")).to_have_attribute(
        "aria-pressed", "true", timeout=EVENT_WAIT_MS
    )
    expect(moderator_page.locator("#audit")).to_contain_text("approve_prompt")


def test_a_prompt_the_gate_rejects_shows_its_reason_to_its_author(new_viewer):
    author = new_viewer()
    wait_for_time_to_act(author, 3)
    submit(author, f"fuck this whole channel {tag()}")
    expect(author.locator("#prompt-feedback")).to_contain_text("not accepted", timeout=EVENT_WAIT_MS)
    expect(author.locator("#prompt-feedback")).to_contain_text("profanity")
    expect(author.locator("#my-prompts .my-prompt-reason").first).to_contain_text("profanity")


def test_a_prompt_a_moderator_rejects_shows_the_moderators_reason_to_its_author(new_viewer, moderator_page):
    author = new_viewer()
    wait_for_time_to_act(author, 3)
    card = submit_held(author, moderator_page, f"a nude statue in the winter rain {tag()}")
    card.locator(".reject-reason").fill("not the mood of this channel")
    card.get_by_role("button", name="Reject").click()
    expect(author.locator("#prompt-feedback")).to_contain_text(
        "not the mood of this channel", timeout=EVENT_WAIT_MS
    )
    expect(author.locator("#my-prompts")).to_contain_text("Reason: not the mood of this channel")


def test_viewer_text_is_shown_as_text_never_run_as_markup(new_viewer):
    alice, bob = new_viewer(), new_viewer()
    wait_for_time_to_act(alice)
    # Words enough around the markup for the gate to read it as English: markup alone is mostly words no
    # language has, which the gate holds for a moderator rather than airs.
    text = (
        f'a fox in the snow <img src=x onerror="window.__owned=1"> jumps over the moon '
        f"<script>window.__owned=1</script> at night {tag()}"
    )
    submit_seen_by(alice, bob, text)
    assert candidate(bob, text).locator(".candidate-text").text_content() == text
    assert bob.evaluate("window.__owned") is None
    assert bob.locator("#candidates img").count() == 0


def test_the_page_reconnects_by_itself_and_resyncs(new_viewer):
    page = new_viewer()
    expect(page.locator("#connection")).to_have_attribute("data-state", "open")
    round_before = page.evaluate("window.yolive.state.round.id")
    page.evaluate("window.yolive.state.round = null; window.yolive.socket.drop()")
    expect(page.locator("#connection")).to_have_attribute("data-state", "reconnecting", timeout=3_000)
    expect(page.locator("#connection")).to_have_attribute("data-state", "open", timeout=EVENT_WAIT_MS)
    page.wait_for_function("window.yolive.state.round !== null", timeout=EVENT_WAIT_MS)
    assert page.evaluate("window.yolive.state.round.id") >= round_before


def test_the_page_fits_a_phone_screen(stack, new_viewer, shots):
    page = new_viewer(PHONE)
    if "broadcaster" in stack.processes:
        page.wait_for_function("document.getElementById('video').currentTime > 0.5", timeout=60_000)
    page.screenshot(path=str(shots / "viewer-phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    for selector in ("#video", "#prompt-text", "#fullscreen"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["width"] <= PHONE["width"], selector
    expect(page.locator("#model-note")).to_be_visible()  # what the default model draws, and what not
    expect(page.locator("#stand-in")).to_be_hidden()


def test_the_live_video_plays_muted_and_keeps_advancing_without_a_stall(new_viewer, shots):
    page = new_viewer()
    video = page.locator("#video")
    assert video.evaluate("v => v.muted") is True
    page.wait_for_function("document.getElementById('video').currentTime > 0.5", timeout=60_000)
    samples = []
    for _ in range(PLAY_SECONDS + 1):
        samples.append(video.evaluate("v => v.currentTime"))
        time.sleep(1)
    page.screenshot(path=str(shots / "viewer-desktop.png"), full_page=True)
    steps = [b - a for a, b in itertools.pairwise(samples)]
    assert all(step > 0.3 for step in steps), f"the video stalled: {samples}"
    assert samples[-1] - samples[0] >= PLAY_SECONDS * 0.9, samples
    fatal = page.evaluate("window.yolive.player.log.filter(e => e.type === 'error' && e.fatal)")
    assert fatal == []


def test_clips_go_from_rendering_to_on_air_to_replay(new_viewer, shots):
    page = new_viewer()
    # The first rounds close on their own (a house prompt wins when nobody writes), so clips keep coming.
    expect(page.locator("#next")).to_be_visible(timeout=CLIP_WAIT_MS)  # the next clip, with its progress
    expect(page.locator("#render-status")).to_have_text(re.compile(r"queued|\d+% rendered|ready"))
    expect(page.locator("#on-air")).to_contain_text("Round", timeout=CLIP_WAIT_MS)
    replay = page.locator("#recent button", has_text="Replay").first
    expect(replay).to_be_visible(timeout=CLIP_WAIT_MS)
    page.screenshot(path=str(shots / "viewer-with-clips.png"), full_page=True)
    replay.click()
    expect(page.locator("#replaying")).to_be_visible()
    page.wait_for_function(
        "window.yolive.player.live === false && document.getElementById('video').currentTime > 1",
        timeout=20_000,
    )
    page.click("#back-to-live")
    expect(page.locator("#replaying")).to_be_hidden()
    page.wait_for_function("window.yolive.player.live === true")


def test_a_moderator_times_out_an_author_who_is_told_and_cannot_submit(new_viewer, moderator_page):
    author = new_viewer()
    wait_for_time_to_act(author, 3)
    card = submit_held(author, moderator_page, f"a naked ghost at a party {tag()}")
    card.locator(".reject-reason").fill("testing the limits")
    card.get_by_role("button", name="Time out author 10 min").click()
    expect(author.locator("#prompt-feedback")).to_contain_text("timed out", timeout=EVENT_WAIT_MS)
    expect(moderator_page.locator("#audit")).to_contain_text("timeout", timeout=EVENT_WAIT_MS)

    submit(author, f"a calm lake at dawn {tag()}")
    expect(author.locator("#prompt-feedback")).to_contain_text("testing the limits", timeout=EVENT_WAIT_MS)
