"""The default model's world and its judge: the drawn clips, the vocabulary, and a metric that can fail."""

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from generation.model_folder import VOCABULARY_FILE
from generation.model_folder import render_facts as shipped_facts
from lab.evaluation.judge import judge
from lab.training.architecture import FPS, HEIGHT, WIDTH
from lab.training.model_folder import render_facts
from lab.world.clips import Scene, draw, to_uint8
from lab.world.vocabulary import MOTIONS, SETTINGS, SUBJECTS, as_json, find_words, read_prompt
from tests.helpers.generation import WORLD_PROMPTS

ROOT = Path(__file__).resolve().parents[2]


def test_the_world_has_the_subjects_settings_and_motions_the_issue_asks_for():
    assert len(SUBJECTS) >= 24 and len(SETTINGS) >= 8 and len(MOTIONS) >= 6


def test_a_prompt_is_read_for_subject_setting_and_motion_with_synonyms():
    reading = read_prompt("A Kitten, jumping!! in the SNOW")
    assert (reading.subjects, reading.setting, reading.motion) == (("cat",), "snow", "bounce")


def test_a_prompt_of_any_length_is_read_to_its_end():
    assert read_prompt("cat " * 60 + "falling in the desert").setting == "desert"


def test_a_prompt_with_no_known_word_gets_the_default_scene():
    defaults = as_json()["defaults"]
    reading = read_prompt("nothing the model knows about")
    assert (reading.subjects[0], reading.setting, reading.motion) == (
        defaults["subject"],
        defaults["setting"],
        defaults["motion"],
    )


def test_the_shipped_vocabulary_file_is_the_vocabulary_the_code_reads():
    assert json.loads(VOCABULARY_FILE.read_text()) == json.loads(json.dumps(as_json()))


def test_the_shipped_folder_states_the_sizes_rate_and_schedule_the_lab_trains_with():
    assert shipped_facts() == render_facts()


def test_the_page_highlights_the_same_words_the_model_reads():
    script = f"""
        import {{ phraseTables, findWords }} from "{ROOT}/frontend/static/frontend/vocabulary.js";
        const vocabulary = JSON.parse(await (await import("node:fs/promises")).readFile("{VOCABULARY_FILE}"));
        const tables = phraseTables(vocabulary);
        console.log(JSON.stringify({json.dumps(WORLD_PROMPTS)}.map((p) => findWords(tables, p))));
    """
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    page = json.loads(out.stdout)
    model = [
        [{"kind": m.kind, "name": m.name, "start": m.start, "end": m.end} for m in find_words(p)]
        for p in WORLD_PROMPTS
    ]
    assert page == model
    assert any(page)  # the prompts do contain known words


@pytest.mark.parametrize("index", range(0, 24, 3))
def test_the_judge_recognises_ground_truth_clips(index):
    scene = Scene(
        (SUBJECTS[index].name,),
        SETTINGS[index % len(SETTINGS)].name,
        MOTIONS[index % len(MOTIONS)].name,
        index,
    )
    frames, _ = draw(scene, 80, FPS, HEIGHT, WIDTH)
    verdict = judge(to_uint8(frames), scene.subjects[0])
    assert (verdict.setting, verdict.subject, verdict.motion) == (
        scene.setting,
        scene.subjects[0],
        scene.motion,
    )
    assert verdict.visible >= 0.9


def test_the_judge_finds_no_subject_in_a_backdrop_alone():
    frames, _ = draw(Scene((), "sea", "left", 3), 80, FPS, HEIGHT, WIDTH)
    verdict = judge(to_uint8(frames), "cat")
    assert verdict.setting == "sea"
    assert verdict.visible < 0.5


def test_the_judge_reads_the_random_stand_ins_output_as_no_subject():
    from generation.presets import get_preset
    from generation.renderer import Renderer, RenderRequest
    from tests.helpers.generation import NO_CACHES

    tiny = get_preset("tiny")
    result = Renderer(tiny, tiny.build(), NO_CACHES).render(
        RenderRequest(prompt="a cat bouncing", seed=1, width=WIDTH, height=HEIGHT, fps=FPS, num_frames=32)
    )
    assert judge(result.frames, "cat").visible < 0.5


def test_frames_are_drawn_the_same_from_the_same_seed():
    scene = Scene(("fox", "bee"), "forest", "right", 11)
    first, _ = draw(scene, 5, FPS, HEIGHT, WIDTH)
    again, _ = draw(scene, 5, FPS, HEIGHT, WIDTH)
    other, _ = draw(Scene(("fox", "bee"), "forest", "right", 12), 5, FPS, HEIGHT, WIDTH)
    assert np.array_equal(first, again) and not np.array_equal(first, other)


@pytest.mark.parametrize("grid", [8, 16])
def test_on_a_grid_a_crossing_subject_steps_from_square_to_square_and_the_judge_still_reads_it(grid: int):
    scene = Scene(("fox",), "sky", "right", 4)
    frames, masks = draw(scene, 80, FPS, HEIGHT, WIDTH, grid=grid)
    glided, _ = draw(scene, 80, FPS, HEIGHT, WIDTH)
    lefts = [int(np.nonzero(mask.any(axis=0))[0].min()) for mask in masks]
    inside = [x for x in lefts if x > 0]  # a sprite the frame's left edge cuts starts at 0, not on its grid
    assert inside and all(x % grid == 0 for x in inside)
    assert len(set(lefts)) > 3  # it still crosses the sky, a square at a time
    assert not np.array_equal(frames, glided)
    verdict = judge(to_uint8(frames), "fox")
    assert (verdict.subject, verdict.motion) == ("fox", "right") and verdict.visible >= 0.9


def test_a_blurred_subject_keeps_its_backdrop_and_colours_and_loses_the_detail_the_judge_matches():
    from scipy.ndimage import maximum_filter

    from lab.evaluation.judge import subject_scores
    from lab.evaluation.rows import Case, blurred, drawn, ground_truth

    case = Case("a cat bouncing in the snow", Scene(("cat",), "snow", "bounce", 4))
    truth, soft = ground_truth(case), blurred(4.0)(case)
    alpha = drawn(case.scene)[1]
    far = maximum_filter(alpha, size=(1, 33, 33)) == 0  # no subject within 16 pixels
    change = np.abs(soft.astype(int) - truth.astype(int)).max(axis=-1)
    assert change[far].max() <= 1  # the backdrop as drawn
    assert change[alpha > 0.5].mean() > 10  # the subject is not
    subject = (alpha[..., None] * soft).sum((0, 1, 2)) / alpha.sum()
    drawn_subject = (alpha[..., None] * truth).sum((0, 1, 2)) / alpha.sum()
    assert np.abs(subject - drawn_subject).max() < 40  # its colours, roughly
    assert subject_scores(soft)["cat"] < subject_scores(truth)["cat"]
    assert np.abs(blurred(0.0)(case).astype(int) - truth.astype(int)).max() <= 1  # no blur: ground truth


def test_the_judge_names_a_turned_subject_where_it_is_asked_to_match_the_turn():
    from lab.evaluation.judge import ANGLES, subject_scores

    turned = draw(Scene(("cat",), "sky", "spin", 3), 1, FPS, HEIGHT, WIDTH, start=5)[0]  # a quarter turn
    upright, at_turns = subject_scores(turned), subject_scores(turned, ANGLES)
    assert max(at_turns, key=lambda name: at_turns[name]) == "cat"
    assert at_turns["cat"] > upright["cat"] + 0.1


def test_the_evaluation_names_each_rows_strips_by_its_key_whatever_its_label(tmp_path: Path):
    from lab.evaluation.rows import backdrop_only, blurred, evaluate

    sources = {
        "backdrop": ("backdrop only", backdrop_only),
        "blurred": ("ground truth, blurred", blurred(4.0)),  # a label whose first word is another row's key
    }
    lines = list(evaluate(2, sources, tmp_path))
    assert [line.split(" | ")[0] for line in lines[-2:]] == ["| backdrop only", "| ground truth, blurred"]
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "backdrop-0.png",
        "backdrop-1.png",
        "blurred-0.png",
        "blurred-1.png",
    ]
