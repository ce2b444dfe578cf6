"""The default model's words on the viewer page: highlighted as the viewer types, the vocabulary a click away,
and found exactly where the model finds them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from lab.world.vocabulary import find_words
from tests.helpers.browser import DESKTOP
from tests.helpers.generation import WORLD_PROMPTS

pytestmark = [pytest.mark.browser]


@pytest.fixture
def world_page(browser, stack):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=DESKTOP, base_url=stack.url)  # the shared stack runs the default
    page = context.new_page()
    page.goto("/")
    page.wait_for_function("window.yoliveVocabulary", timeout=20_000)
    yield page
    context.close()


def test_the_words_the_model_knows_light_up_while_the_viewer_types(world_page):
    world_page.locator("#prompt-text").press_sequentially("A kitten jumping in the snow, then more")
    marks = world_page.locator("#prompt-understood mark")
    expect(marks).to_have_text(["kitten", "jumping", "snow"])
    expect(world_page.locator("#prompt-reading")).to_contain_text("cat")
    expect(world_page.locator("#prompt-reading")).to_contain_text("snow")
    expect(world_page.locator("#prompt-reading")).to_contain_text("bounce")


def test_a_prompt_with_no_known_word_says_it_gets_the_default_scene(world_page):
    world_page.locator("#prompt-text").fill("a lighthouse keeper finds a glowing map")
    world_page.locator("#prompt-text").dispatch_event("input")
    expect(world_page.locator("#prompt-understood mark")).to_have_count(0)
    expect(world_page.locator("#prompt-reading")).to_contain_text("balloon (default)")
    expect(world_page.locator("#model-note")).to_contain_text("24 subjects")


def test_the_vocabulary_is_one_click_away_and_a_click_writes_the_word(world_page):
    world_page.locator("#vocabulary summary").click()
    world_page.locator("#vocabulary .word", has_text="dog").click()
    expect(world_page.locator("#prompt-text")).to_have_value("dog ")
    expect(world_page.locator("#prompt-understood mark")).to_have_text(["dog"])


def test_the_page_finds_the_same_words_as_the_model(world_page):
    page_found = world_page.evaluate(
        "(ps) => { const v = window.yoliveVocabulary; return ps.map((p) => v.findWords(v.tables, p)); }",
        WORLD_PROMPTS,
    )
    model_found = [
        [{"kind": m.kind, "name": m.name, "start": m.start, "end": m.end} for m in find_words(p)]
        for p in WORLD_PROMPTS
    ]
    assert page_found == model_found


@pytest.mark.django_db
def test_the_stand_in_publishes_no_vocabulary(client, settings):  # type: ignore[no-untyped-def]
    settings.MODEL_PRESET = "tiny"
    assert client.get("/model/vocabulary.json").status_code == 404
    page = client.get("/").content.decode()
    assert "vocabulary.js" not in page
    assert 'id="stand-in" hidden' not in page  # the test-pattern line shows instead
    assert 'id="model-note"' not in page
