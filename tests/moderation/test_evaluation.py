"""The labelled set and what the gate scores on it: the goals the issue set, the table in docs/moderation.md.

Every figure is computed here from the set in the repository, through the gate as shipped.
"""

import time
from pathlib import Path

import pytest

from yolive.moderation.policy import evaluate
from yolive.moderation.policy.harm.categories import CATEGORIES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "moderation.md"
TABLE_START, TABLE_END = evaluate.TABLE_START, evaluate.TABLE_END


@pytest.fixture(scope="module")
def examples():
    return evaluate.load()


@pytest.fixture(scope="module")
def table(examples):
    return evaluate.measure(examples)


def test_the_set_has_every_category_its_disguises_and_benign_look_alikes(examples):
    assert len(examples) >= 600
    labels = {e.label for e in examples}
    assert labels == {c.value for c in CATEGORIES} | {evaluate.BENIGN}
    disguises = {e.form for e in examples if e.label != evaluate.BENIGN}
    assert {"plain", "leet", "spaced", "lookalike", "language", "slang"} <= disguises
    topics = {e.form for e in examples if e.label == evaluate.BENIGN}
    assert {"animals", "sports", "cooking", "games", "history"} <= topics
    for category in CATEGORIES:
        assert sum(e.label == category.value for e in examples) >= 30, category


@pytest.mark.parametrize("category", list(evaluate.GOALS), ids=str)
def test_recall_at_the_default_levels_meets_its_goal(table, category):
    recall = table.cells[evaluate.row_name(category)]["default"]
    assert recall >= evaluate.GOALS[category], f"{category}: {recall:.1%}"


def test_benign_prompts_are_rarely_refused_or_held_at_the_default_levels(table):
    assert table.cells["benign: refused"]["default"] <= evaluate.BENIGN_REFUSED_AT_MOST
    assert table.cells["benign: held"]["default"] <= evaluate.BENIGN_HELD_AT_MOST


def test_level_zero_lets_through_all_but_the_hard_floor_and_four_stops_the_most(table):
    for category in CATEGORIES:
        by_level = table.cells[evaluate.row_name(category)]
        assert [by_level[level] for level in range(5)] == sorted(by_level[level] for level in range(5))
    assert table.cells["benign: refused"][0] == 0.0


def test_the_table_in_the_docs_is_the_one_the_set_gives(table):
    text = DOCS.read_text(encoding="utf-8")
    assert TABLE_START in text and TABLE_END in text, "docs/moderation.md lost its table markers"
    documented = text.split(TABLE_START, 1)[1].split(TABLE_END, 1)[0].strip()
    assert documented == table.render()


def test_a_malformed_line_in_the_set_is_a_clear_error(tmp_path):
    (tmp_path / "bad.tsv").write_text("sexual\tplain\n", encoding="utf-8")
    with pytest.raises(evaluate.EvalSetError, match=r"bad.tsv:1: expected label"):
        evaluate.load(tmp_path)
    (tmp_path / "bad.tsv").write_text("gore\tplain\ta bloody mess\n", encoding="utf-8")
    with pytest.raises(evaluate.EvalSetError, match="unknown label 'gore'"):
        evaluate.load(tmp_path)


def test_judging_a_prompt_takes_a_few_milliseconds(examples):
    from yolive.moderation.policy.gate import read_text
    from yolive.moderation.policy.harm.assess import assess

    matcher = evaluate.shipped_matcher()
    read_text("warm up the classifier", matcher)
    assess.cache_clear()
    sample = [e.text for e in examples[::4]]
    started = time.process_time()
    for text in sample:
        read_text(text, matcher)
    per_prompt_ms = 1000 * (time.process_time() - started) / len(sample)
    assert per_prompt_ms < 10, f"{per_prompt_ms:.1f} ms of CPU a prompt"


def test_one_batch_can_be_measured_on_its_own(tmp_path, capsys):
    batch = tmp_path / "batch.tsv"
    batch.write_text(
        "# a comment\nviolence\tplain\ta man shoots a child\nbenign\tsports\tshoot a basketball\n",
        encoding="utf-8",
    )
    assert [e.text for e in evaluate.load_files([batch])] == ["a man shoots a child", "shoot a basketball"]
    assert evaluate.main(["--file", str(batch)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("2 prompts in batch.tsv")
    assert "| violence: recall | 1 |" in printed and "| benign: refused | 1 |" in printed
