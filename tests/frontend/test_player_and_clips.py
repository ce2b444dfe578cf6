"""The player's controls, the clip pages, the archive and the author's "your prompt aired", in Chromium."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import Page, expect

from tests.helpers.browser import CLIP_WAIT_MS, candidate, submit, tag, wait_for_time_to_act

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def playing(page: Page, at_least_s: float = 0.5) -> None:
    page.wait_for_function(f"document.getElementById('video').currentTime > {at_least_s}", timeout=60_000)


def test_the_player_has_full_screen_picture_in_picture_where_offered_and_go_to_live(new_viewer):
    page = new_viewer()
    playing(page)
    # The stream has no sound track, so nothing offers to unmute it.
    expect(page.locator("#unmute")).to_have_count(0)
    assert page.evaluate("document.getElementById('video').webkitAudioDecodedByteCount") == 0

    page.click("#fullscreen")
    page.wait_for_function("document.fullscreenElement === document.querySelector('.player')")
    expect(page.locator("#fullscreen")).to_have_text("Exit full screen")
    page.click("#fullscreen")
    page.wait_for_function("document.fullscreenElement === null")

    offered = page.evaluate("document.pictureInPictureEnabled")
    expect(page.locator("#pip")).to_be_visible() if offered else expect(page.locator("#pip")).to_be_hidden()

    go_live = page.locator("#go-live")
    expect(go_live).to_be_hidden()
    # Behind (still inside the 12 s live window, which hls.js would otherwise jump back into): offered.
    page.locator("#video").evaluate("v => { v.currentTime = window.yolive.player.livePosition() - 5; }")
    expect(go_live).to_be_visible(timeout=3_000)
    go_live.click()
    expect(go_live).to_be_hidden()
    assert page.evaluate("window.yolive.player.behindLive()") < 2
    page.locator("#video").evaluate("v => v.pause()")  # paused, live moves on without the viewer
    expect(go_live).to_be_visible()
    go_live.click()
    page.wait_for_function("!document.getElementById('video').paused")


def test_a_recent_clip_links_to_its_page_with_the_replay_share_tags_and_poster(stack, new_viewer):
    page = new_viewer()
    expect(page.locator("#recent a").first).to_be_visible(timeout=CLIP_WAIT_MS)
    # Text and address read together: a clip that airs meanwhile redraws the list with a new first item.
    href, label = page.locator("#recent a").first.evaluate("a => [a.getAttribute('href'), a.textContent]")
    prompt = label.split(": ", 1)[1]
    page.locator(f'#recent a[href="{href}"]').click()
    page.wait_for_url(re.compile(r"/clips/\d+/$"))
    expect(page.locator("#clip-prompt")).to_have_text(prompt)
    playing(page, 1)  # the replay plays from the archive

    poster_url = page.locator('meta[property="og:image"]').get_attribute("content")
    assert poster_url and poster_url.startswith(stack.url)
    poster = page.request.get(poster_url)
    assert poster.ok and poster.headers["content-type"] == "image/jpeg"
    with Image.open(io.BytesIO(poster.body())) as image:
        assert image.size == (512, 288)  # a frame of the clip, at the stream's size
    assert page.locator('meta[property="og:url"]').get_attribute("content") == page.url
    assert page.locator('meta[name="twitter:card"]').get_attribute("content") == "summary_large_image"
    assert page.input_value("#share-url") == page.url
    page.click("#share")
    expect(page.locator("#share-feedback")).not_to_be_empty()

    clip_path = page.url.removeprefix(stack.url)
    page.goto("/clips/")
    thumbnail = page.locator(f'#archive a[href="{clip_path}"] img')
    expect(thumbnail).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=thumbnail.element_handle())


def test_an_author_whose_prompt_aired_is_told_with_a_link_to_its_page(new_viewer):
    author = new_viewer()
    wait_for_time_to_act(author)
    text = f"a paper boat sails past a sleeping whale {tag()}"
    submit(author, text)
    mine = candidate(author, text)
    expect(mine).to_be_visible(timeout=8_000)
    mine.locator("button.vote-button").click()  # the only vote this round: it wins

    aired = author.locator("#aired-link")
    expect(aired).to_be_visible(timeout=CLIP_WAIT_MS)
    expect(author.locator("#prompt-feedback")).to_contain_text("Your prompt aired")
    href = aired.get_attribute("href")
    assert href and re.fullmatch(r"/clips/\d+/", href)
    expect(author.locator("#my-prompts .status-aired a")).to_have_attribute("href", href)
    aired.click()
    expect(author.locator("#clip-prompt")).to_have_text(text)
