"""The corpus and what the gate scores on its test split: the goals issue 45 set, the tables in
docs/moderation.md.

Every figure is computed here from the corpus in the repository, through the gate as shipped.
"""

from collections import Counter
from pathlib import Path

import pytest

from yolive.moderation.policy import corpus, evaluate
from yolive.moderation.policy.corpus import disguises
from yolive.moderation.policy.harm.categories import CATEGORIES, Category

DOCS = Path(__file__).resolve().parents[2] / "docs" / "moderation.md"
NEW_CATEGORIES = {Category.WEAPONS, Category.DRUGS, Category.PERSONAL, Category.EXTREMISM}


# The test split (two lists written by people who never saw the gate): what a fresh list scores.
NOT_MET_ON_A_FRESH_LIST = pytest.mark.xfail(
    strict=True,
    reason="not met on the test split, written by people who never saw the gate (docs/moderation.md): "
    "harmful approved 5.8 % of 496, minors 6.6 % of 61, benign stopped 5.6 % of 286, extremism caught 88 %, "
    "drugs 92 %",
)


@pytest.fixture(scope="module")
def examples():
    return list(corpus.load())


@pytest.fixture(scope="module")
def results():
    return evaluate.measure(corpus.split("test"))


def test_the_corpus_has_every_category_language_and_disguise(examples):
    assert len(examples) >= 2000
    harmful = Counter(e.category for e in examples if e.harmful)
    for category in CATEGORIES:
        if category != Category.LANGUAGE:
            assert harmful[category.value] >= 10, category
    languages = Counter(e.language for e in examples)
    for language in corpus.JUDGED_LANGUAGES:
        assert languages[language] >= 40, language
    assert sum(not e.judged for e in examples) >= 50
    disguises = {e.disguise for e in examples if e.harmful}
    assert {"spaced", "dotted", "homoglyph", "fullwidth", "zero-width", "backwards", "frame", "misspelt",
            "emoji", "coded"} <= disguises  # fmt: skip
    topics = {e.category for e in examples if not e.harmful}
    assert {"sports", "kitchen", "places", "identity", "games", "history"} <= topics


def test_the_splits_keep_a_disguised_copy_with_its_prompt_and_the_test_split_apart(examples):
    assert {e.split for e in examples} == {"train", "dev", "test"}
    assert all(e.split == "train" for e in examples if e.source == corpus.SEEN_ONLY)
    assert all((e.split == "test") == (e.source == corpus.TEST_ONLY) for e in examples)
    copies = [e for e in examples if e.disguise_of]
    assert len(copies) >= 300 and {e.disguise for e in copies} == set(disguises.ON_HARMFUL)
    for copy in copies:
        assert copy.split == corpus.split_of(copy.disguise_of, copy.source), copy
    test = [e for e in examples if e.split == "test"]
    assert len(test) >= 200 and {e.language for e in test} >= set(corpus.JUDGED_LANGUAGES)


@NOT_MET_ON_A_FRESH_LIST
def test_few_harmful_prompts_of_the_test_split_are_approved_and_no_minors_one(results):
    assert results.harmful_approved() <= evaluate.HARMFUL_APPROVED_AT_MOST
    assert (
        results.harmful_approved(lambda e: e.category == Category.MINORS) <= evaluate.MINORS_APPROVED_AT_MOST
    )


@NOT_MET_ON_A_FRESH_LIST
def test_benign_prompts_of_the_test_split_are_rarely_stopped(results):
    assert results.benign_stopped() <= evaluate.BENIGN_STOPPED_AT_MOST


# Not met as written (47 of 48 held); met since the learned reader holds the one the rules let through.
def test_every_prompt_in_a_language_the_gate_does_not_judge_is_held(results):
    share, n = results.share(lambda e: not e.judged, "hold", "reject")
    assert n and share == 1.0


@NOT_MET_ON_A_FRESH_LIST
def test_the_new_categories_catch_their_own_prompts(results):
    for category in NEW_CATEGORIES:
        refused_or_held, n = results.share(
            lambda e, c=category: e.harmful and e.category == c.value, "reject", "hold"
        )
        assert n and refused_or_held >= 0.9, category


def test_the_tables_in_the_docs_are_the_ones_the_test_split_gives(results):
    text = DOCS.read_text(encoding="utf-8")
    assert evaluate.TABLE_START in text and evaluate.TABLE_END in text, "docs/moderation.md lost its markers"
    documented = text.split(evaluate.TABLE_START, 1)[1].split(evaluate.TABLE_END, 1)[0].strip()
    assert documented == results.render()


def test_a_malformed_line_in_the_corpus_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("a man shoots a child\tharmful\tviolence\ten\n", encoding="utf-8")
    with pytest.raises(corpus.CorpusError, match=r"bad.tsv:1: expected text, label"):
        corpus.read_file(bad)
    bad.write_text("a man\tnasty\tviolence\ten\tplain\n", encoding="utf-8")
    with pytest.raises(corpus.CorpusError, match="unknown label 'nasty'"):
        corpus.read_file(bad)


def test_one_batch_can_be_measured_on_its_own(tmp_path, capsys):
    batch = tmp_path / "batch.tsv"
    batch.write_text(
        "# a comment\na man shoots a child\tharmful\tminors\ten\tplain\n"
        "shoot a basketball\tbenign\tsports\ten\tplain\n",
        encoding="utf-8",
    )
    assert [e.text for e in corpus.read_file(batch)] == ["a man shoots a child", "shoot a basketball"]
    assert evaluate.main(["--file", str(batch)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("2 prompts in batch.tsv")
    assert "harmful approved 0.0 % of 1" in printed and "benign stopped 0.0 % of 1" in printed
