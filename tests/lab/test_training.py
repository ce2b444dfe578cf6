"""`make model`'s stages on small batches: a few steps lower the loss, and a stopped run resumes."""

from pathlib import Path

import numpy as np
import pytest
import torch

from lab.training import schedule
from lab.training import transformer as stage2
from lab.training import vae as stage1
from lab.training.architecture import (
    CLIP_FRAMES,
    HEAD_WIDTH,
    HEIGHT,
    LATENT_CHANNELS,
    LATENT_GRID,
    SPATIAL,
    TEMPORAL,
    WIDTH,
    build_vae,
)
from lab.training.checkpoints import StaleCheckpoint, load_checkpoint, save_checkpoint
from lab.training.transformer import Latents, Trainer
from tests.helpers.commands import refusal
from tests.helpers.training import losses_on_one_batch


def test_a_few_vae_steps_on_one_batch_lower_its_loss():
    torch.manual_seed(0)
    vae = build_vae().train()
    opt = torch.optim.Adam(vae.parameters(), lr=stage1.LEARNING_RATE)
    stage1.FRAME_BATCH = 4
    probe = stage1.identity_probe()
    opt.add_param_group({"params": list(probe.parameters())})
    batch = stage1.frame_batch(np.random.default_rng(0))
    losses = []
    for _ in range(30):
        loss, _ = stage1.reconstruction_loss(vae, batch, probe)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert np.mean(losses[-5:]) < 0.9 * np.mean(losses[:5])


def test_moved_latents_interpolate_toward_the_side_they_move_to():
    grid = torch.zeros(2, 1, 4, 5)
    grid[:, :, 1, 2] = 1.0
    right = stage1.moved(grid, 0.0, 0.25)
    assert right[0, 0, 1, 2] == pytest.approx(0.75) and right[0, 0, 1, 3] == pytest.approx(0.25)
    up = stage1.moved(grid, -0.5, 0.0)
    assert up[1, 0, 1, 2] == pytest.approx(0.5) and up[1, 0, 0, 2] == pytest.approx(0.5)
    assert torch.equal(
        stage1.moved(grid, 1.0, 0.0)[..., 2, :], grid[..., 1, :]
    )  # a whole cell: the row below
    assert stage1.moved(grid, 0.3, -0.7).sum().item() == pytest.approx(2.0)  # nothing lost inside the frame


def shifted_frames(monkeypatch) -> tuple[stage1.Batch, stage1.Shifted]:
    """A small batch of frames and the same moved down and left, then right: both ways, both axes."""
    monkeypatch.setattr(stage1, "FRAME_BATCH", 2)
    rng = np.random.default_rng(3)
    while True:
        batch, shifted = stage1.shifted_batch(rng, 1)
        if all(shifted.by):
            return batch, shifted


def test_a_shifted_crop_holds_the_same_frames_moved_by_its_shift(monkeypatch):
    batch, shifted = shifted_frames(monkeypatch)
    down, across = (round(by * SPATIAL) for by in shifted.by)
    assert abs(down) <= SPATIAL // 2 and abs(across) <= SPATIAL // 2

    def overlap(video: torch.Tensor, moved_by: tuple[int, int]) -> torch.Tensor:
        (dy, dx), (h, w) = moved_by, video.shape[-2:]
        return video[..., max(0, dy) : h + min(0, dy), max(0, dx) : w + min(0, dx)]

    assert torch.equal(overlap(shifted.batch.video, (down, across)), overlap(batch.video, (-down, -across)))
    assert torch.equal(overlap(shifted.batch.mask, (down, across)), overlap(batch.mask, (-down, -across)))
    assert not torch.equal(shifted.batch.video, batch.video)


def test_a_few_vae_steps_on_shifted_crops_move_the_latents_with_the_picture(monkeypatch):
    torch.manual_seed(0)
    vae = build_vae().train()
    opt = torch.optim.Adam(vae.parameters(), lr=stage1.LEARNING_RATE)
    batch, shifted = shifted_frames(monkeypatch)
    errors, drawn = [], []
    for _ in range(30):
        loss, parts = stage1.reconstruction_loss(vae, batch, shifted=shifted)
        opt.zero_grad()
        loss.backward()
        opt.step()
        errors.append(parts["equivariance"])
        drawn.append(parts["moved_subject_l1"])
    assert np.mean(errors[-5:]) < 0.8 * np.mean(errors[:5])
    # The moved latents' drawing improves by a tenth in these steps, and Adam's steps on one batch spike now
    # and then (by as much, on some machines' arithmetic): the median of the last ten, not their mean.
    assert np.median(drawn[-10:]) < 0.95 * np.mean(drawn[:5])


@torch.no_grad()
def test_the_shift_terms_weigh_what_they_are_given_beside_the_reconstruction(monkeypatch):
    torch.manual_seed(0)
    vae = build_vae().eval()
    batch, shifted = shifted_frames(monkeypatch)
    alone, _ = stage1.reconstruction_loss(vae, batch)
    weighed = {
        w: stage1.reconstruction_loss(vae, batch, shifted=shifted, shift_weight=w)[0] for w in (0, 1, 2)
    }
    assert torch.allclose(weighed[0], alone)
    assert weighed[1] > alone
    assert torch.allclose(weighed[2] - alone, 2 * (weighed[1] - alone), rtol=1e-4)


def test_a_vae_run_refuses_to_resume_a_checkpoint_trained_at_another_shift_weight(monkeypatch, tmp_path):
    monkeypatch.setattr(stage1, "FRAME_BATCH", 2)
    checkpoint = tmp_path / "vae.pt"
    _, steps = stage1.train(1, checkpoint, threads=1, max_steps=1, shifts=0.25)
    assert steps == 1
    with pytest.raises(StaleCheckpoint, match=r"shift terms at 0\.25, not 0\.0"):
        stage1.train(1, checkpoint, threads=1, max_steps=2)
    _, steps = stage1.train(1, checkpoint, threads=1, max_steps=2, shifts=0.25)
    assert steps == 2  # the same weight goes on where it stopped


def small_latents(count: int = 4, frames: int = LATENT_GRID[0]) -> Latents:
    """`count` random clips of `frames` latent frames (a clip's 12 by default; 3 still hold a lead of 2)."""
    g = torch.Generator().manual_seed(0)
    grid = (frames, *LATENT_GRID[1:])
    return Latents(
        x0=torch.randn(count, LATENT_CHANNELS, *grid, generator=g).half(),
        masks=torch.rand(count, *grid, generator=g).half(),
        captions=[["a cat bouncing in the snow", "a kitten jumps"], ["a rocket rising in space"]]
        * (count // 2),
        continuation=torch.tensor([True, False] * (count // 2)),
    )


def test_a_few_transformer_steps_on_one_batch_lower_its_loss(monkeypatch):
    monkeypatch.setattr(stage2, "BATCH", 4)
    trainer = Trainer(small_latents(frames=3), threads=1)  # short clips: a quarter of the tokens
    assert trainer.lead_tokens  # that still continue from their lead frames
    losses = losses_on_one_batch(trainer)
    assert losses[-1] < 0.85 * losses[0]


def test_in_bfloat16_autocast_the_loss_is_float32_and_close_to_the_float32_one():
    import copy

    plain = Trainer(small_latents(), 1, batch=2, autocast=False)
    parts = (copy.deepcopy(plain.transformer), copy.deepcopy(plain.text_encoder))
    mixed = Trainer(small_latents(), 1, *parts, batch=2, autocast=True)
    losses = []
    for trainer in (plain, mixed):
        torch.manual_seed(1)  # the same noise
        losses.append(trainer.loss(np.random.default_rng(0)))
    assert losses[1].dtype == torch.float32
    assert losses[1].item() == pytest.approx(losses[0].item(), rel=0.05)
    assert losses[1].item() != losses[0].item()  # computed in bfloat16 indeed


def test_fewer_clips_than_a_batch_is_a_clear_error():
    with pytest.raises(ValueError, match="4 clips cannot fill a batch of 8"):
        Trainer(small_latents(4), 1, batch=8)


def test_a_tenth_of_the_captions_are_dropped_so_that_renders_can_be_guided():
    trainer = Trainer(small_latents(), threads=1, batch=2)
    rng = np.random.default_rng(0)
    texts = [text for _ in range(500) for text in trainer.captions([0, 1], rng)]
    dropped = texts.count(stage2.NO_PROMPT) / len(texts)
    assert 0.07 < dropped < 0.13
    kept = {text for text in texts if text != stage2.NO_PROMPT}
    assert kept == {"a cat bouncing in the snow", "a kitten jumps", "a rocket rising in space"}


def test_the_drawn_clips_are_encoded_once_with_their_masks_and_captions(tmp_path: Path):
    from lab.training.clips import draw_all

    draw_all(tmp_path / "clips", 2)
    latents = stage2.encode_clips(build_vae().eval(), tmp_path / "clips", tmp_path / "latents.pt")
    h, w = HEIGHT // SPATIAL, WIDTH // SPATIAL
    assert latents.x0.shape == (2, LATENT_CHANNELS, (CLIP_FRAMES - 1) // TEMPORAL + 1, h, w)
    assert latents.masks.shape == (2, (CLIP_FRAMES - 1) // TEMPORAL + 1, h, w) == (2, *LATENT_GRID)
    assert all(captions and all(captions) for captions in latents.captions)
    again = stage2.encode_clips(None, tmp_path / "missing", tmp_path / "latents.pt")  # read back, not redone
    assert torch.equal(again.x0, latents.x0) and again.captions == latents.captions


def test_a_still_is_one_frame_of_a_training_scene_with_its_mask_and_captions():
    from lab.training.clips import draw_still
    from lab.training.scenes import is_held_out
    from lab.world.captions import scene_for
    from lab.world.clips import Scene

    frames, mask, info = draw_still(0, seed=2)
    assert frames.shape == (1, HEIGHT, WIDTH, 3) and frames.dtype == np.uint8
    assert mask.shape == (1, HEIGHT // SPATIAL, WIDTH // SPATIAL) and mask.max() > 0.5  # the subject is there
    subjects, setting, motion = info["scene"]
    assert not is_held_out(Scene(tuple(subjects), setting, motion))
    assert all(scene_for(text, 0) == Scene(tuple(subjects), setting, motion) for text in info["captions"])
    assert not np.array_equal(draw_still(1, seed=2)[0], frames)


# the shipped shape, twice its width, and a token of one latent cell (lab.experiments.shapes --heads 8,
# --patch 1)
@pytest.mark.parametrize(("heads", "cells"), [(4, 2), (8, 2), (4, 1)])
def test_a_trainer_learns_on_stills_as_on_clips_at_the_width_and_patch_asked_for(heads: int, cells: int):
    clips = small_latents(4)
    stills = Latents(clips.x0[:, :, :1], clips.masks[:, :1], clips.captions, torch.zeros(4, dtype=torch.bool))
    trainer = Trainer(stills, threads=1, batch=4, heads=heads, cells=cells)
    width = heads * HEAD_WIDTH
    assert trainer.transformer.proj_in.in_features == LATENT_CHANNELS * cells**2  # a token's cells, packed
    assert trainer.coords.shape[-1] == stills.x0[0, 0].numel() // cells**2  # a coordinate for each token
    assert trainer.transformer.proj_in.out_features == width
    assert trainer.transformer.caption_projection.linear_2.out_features == width  # the text read as wide
    losses = losses_on_one_batch(trainer)
    assert losses[-1] < 0.85 * losses[0]


def test_workers_draw_the_clips_one_process_would_and_a_deadline_stops_the_drawing(tmp_path: Path):
    import time

    from lab.training.clips import draw_all

    assert draw_all(tmp_path / "pool", 3, deadline=time.monotonic() - 1) == 1  # the first, then it stops
    assert draw_all(tmp_path / "pool", 3, workers=2) == 3  # the rest, by two processes
    draw_all(tmp_path / "serial", 3)
    for name in ("00002.frames.npy", "00002.mask.npy", "00002.json"):
        assert (tmp_path / "pool" / name).read_bytes() == (tmp_path / "serial" / name).read_bytes()


def test_the_subjects_share_of_tokens_and_of_the_loss_is_measured():
    masks = torch.zeros(1, 1, 4, 4)
    masks[0, 0, 0, 0] = 1.0  # one cell: one of the four 2x2 tokens
    tokens, weight = stage2.subject_share(masks)
    assert tokens == 0.25
    assert weight == pytest.approx((1 + stage2.SUBJECT_WEIGHT) / (4 + stage2.SUBJECT_WEIGHT))


def test_a_checkpoint_restores_weights_optimiser_and_step(tmp_path: Path):
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(model.parameters())
    model(torch.ones(1, 3)).sum().backward()
    opt.step()
    save_checkpoint(tmp_path / "stage.pt", model, opt, step=41)
    again = torch.nn.Linear(3, 2)
    state = load_checkpoint(tmp_path / "stage.pt", again, torch.optim.AdamW(again.parameters()))
    assert state["step"] == 41
    assert torch.equal(again.weight, model.weight)
    assert load_checkpoint(tmp_path / "missing.pt", again) == {}


def test_a_checkpoint_of_another_architecture_stops_the_stage_with_a_clear_error(tmp_path: Path):
    model = torch.nn.Linear(3, 2)
    save_checkpoint(tmp_path / "stage.pt", model, torch.optim.AdamW(model.parameters()), step=41)
    with pytest.raises(StaleCheckpoint, match="another architecture"):
        load_checkpoint(tmp_path / "stage.pt", torch.nn.Linear(4, 2))
    assert (tmp_path / "stage.pt").exists()  # kept for whoever wants it back


def test_a_stage_goes_on_from_a_shipped_part_only_of_the_same_architecture(tmp_path: Path):
    from diffusers import AutoencoderKLLTXVideo, LTXVideoTransformer3DModel

    from lab.training.architecture import TRANSFORMER_CONFIG, VAE_CONFIG, build_transformer
    from lab.training.model_folder import shipped

    assert shipped("vae", tmp_path) is None  # nothing shipped yet
    build_vae().save_pretrained(tmp_path / "vae")
    assert shipped("vae", tmp_path) is not None
    older = {**VAE_CONFIG, "upsample_residual": (False, False, False)}
    AutoencoderKLLTXVideo(**older).save_pretrained(tmp_path / "vae")
    assert shipped("vae", tmp_path) is None  # a changed architecture starts afresh
    build_transformer().save_pretrained(tmp_path / "transformer")
    assert shipped("transformer", tmp_path) is not None
    one_cell = {**TRANSFORMER_CONFIG, "patch_size": 1, "in_channels": 48, "out_channels": 48}
    LTXVideoTransformer3DModel(**one_cell).save_pretrained(tmp_path / "transformer")
    assert shipped("transformer", tmp_path) is None


def test_a_deepened_transformer_computes_what_the_shallow_one_did_and_its_new_blocks_learn():
    from diffusers import LTXVideoTransformer3DModel

    from lab.training.architecture import TRANSFORMER_CONFIG
    from lab.training.growth import OUTPUTS, deepen, sources

    torch.manual_seed(0)
    shallow = LTXVideoTransformer3DModel(**{**TRANSFORMER_CONFIG, "num_layers": 2})
    deep = deepen(shallow, 4)
    assert sources(2, 4) == [0, 0, 1, 1]
    rng = np.random.default_rng
    losses = [Trainer(small_latents(), 1, model, batch=2).loss(rng(0)) for model in (shallow, deep)]
    assert losses[1].item() == pytest.approx(losses[0].item(), rel=1e-5)
    trainer = Trainer(small_latents(), 1, deep, batch=2)
    trainer.opt.zero_grad()
    trainer.loss(np.random.default_rng(0)).backward()
    trainer.opt.step()
    for added in (1, 3):
        for name in OUTPUTS:
            assert deep.transformer_blocks[added].get_submodule(name).weight.abs().sum() > 0


def test_a_shipped_transformer_of_fewer_blocks_grows_to_the_depth_asked_for(tmp_path: Path):
    from diffusers import LTXVideoTransformer3DModel

    from lab.training.architecture import TRANSFORMER_CONFIG
    from lab.training.model_folder import shipped

    layers = TRANSFORMER_CONFIG["num_layers"]
    LTXVideoTransformer3DModel(**TRANSFORMER_CONFIG).save_pretrained(tmp_path / "transformer")
    assert len(shipped("transformer", tmp_path, layers=layers).transformer_blocks) == layers
    assert len(shipped("transformer", tmp_path, layers=layers + 2).transformer_blocks) == layers + 2
    assert shipped("transformer", tmp_path, layers=layers - 1) is None  # fewer than trained: afresh


def test_the_transformer_stage_refuses_a_vae_whose_reconstructions_lose_the_subject():
    from lab.evaluation.rows import VaeNotReady, check_vae
    from tests.helpers.autoencoders import Forgetful, Passthrough

    torch.set_num_threads(1)
    assert check_vae(Passthrough(), count=4) >= 0.7
    with pytest.raises(VaeNotReady, match="under the 70 % the transformer needs"):
        check_vae(Forgetful(), count=4)


def test_denoised_from_no_noise_is_the_vae_reconstruction_and_from_much_noise_is_the_models_own():
    # Noise 0 leaves the transformer's estimate out (x0 = x_0 - 0 v): the row's packing, normalising and
    # decoding must then give back exactly what the VAE row gives.
    from lab.evaluation.rows import cases, denoised, reconstruction
    from lab.training.model_folder import shipped_vae

    case = cases(1)[0]
    reconstructed = reconstruction(shipped_vae())(case).astype(int)
    assert np.abs(denoised(0.0)(case).astype(int) - reconstructed).max() <= 1
    assert np.abs(denoised(0.9)(case).astype(int) - reconstructed).mean() > 2


def test_the_swapped_row_prompts_another_subject_in_the_same_setting_and_motion():
    from lab.evaluation.rows import cases, other_subject
    from lab.world.captions import scene_for

    for case in cases(6):
        swapped = other_subject(case)
        reading = scene_for(swapped.prompt, 0)
        assert reading.subjects != case.scene.subjects and len(reading.subjects) == 1
        assert (reading.setting, reading.motion) == (case.scene.setting, case.scene.motion)
        assert swapped.scene == case.scene  # the same drawing, and so the same latents and noise
        assert other_subject(case) == swapped  # drawn from the case's seed


def test_held_out_prompts_ask_for_combinations_no_training_caption_names():
    from lab.evaluation.rows import cases
    from lab.training.scenes import held_out, seen, training_caption

    rng = np.random.default_rng(0)
    scenes = [training_caption(rng)[1] for _ in range(300)]
    trained = {(s, scene.setting, scene.motion) for scene in scenes for s in scene.subjects}
    held = {(c.scene.subjects[0], c.scene.setting, c.scene.motion) for c in cases(12)}
    asked = {(c.scene.subjects[0], c.scene.setting, c.scene.motion) for c in cases(12, trained=True)}
    assert len(held) == len(asked) == 12
    assert held <= held_out() and not held & trained
    assert asked <= seen() and not asked & held_out()


def test_each_run_warms_up_then_ends_annealed():
    peak = 5e-4
    assert schedule.learning_rate(peak, 0, 0.0) == pytest.approx(peak / schedule.WARMUP)
    assert schedule.learning_rate(peak, schedule.WARMUP, 0.01) == pytest.approx(peak, rel=1e-3)
    assert schedule.learning_rate(peak, 5000, 0.5) < peak
    assert schedule.learning_rate(peak, 9000, 1.0) == pytest.approx(schedule.ANNEALED * peak)
    assert schedule.learning_rate(peak, 9000, 3.0) == pytest.approx(schedule.ANNEALED * peak)  # held


@pytest.mark.parametrize("peak_rate", [None, 2e-3])  # the stage's rate, or one given with --rate
def test_a_transformer_run_follows_the_schedule_from_where_the_last_one_stopped(
    monkeypatch, tmp_path: Path, peak_rate: float | None
):
    monkeypatch.setattr(stage2, "BATCH", 4)
    given = {} if peak_rate is None else {"peak_rate": peak_rate}
    trainer = Trainer(small_latents(), threads=1, **given)
    assert trainer.train(60, tmp_path / "transformer.pt", max_steps=42, first_step=40) == 42
    # Its second and last step: two steps into its warm-up, halfway through its two steps' budget.
    last_rate = schedule.learning_rate(peak_rate or stage2.LEARNING_RATE, 1, 0.5)
    assert trainer.opt.param_groups[0]["lr"] == pytest.approx(last_rate, rel=1e-3)
    assert load_checkpoint(tmp_path / "transformer.pt", trainer.modules())["step"] == 42


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (["transformer", "--rate", "0"], "--rate must be above 0, not 0"),
        (["vae", "--shifts", "-0.5"], "--shifts must be 0 or more, not -0.5"),
    ],
)
def test_an_option_out_of_range_is_refused_before_anything_runs(arguments: list[str], error: str, capsys):
    from lab.training.__main__ import main

    assert error in refusal(main, arguments, capsys)


def test_the_evaluation_refuses_a_negative_blur_before_anything_runs(capsys):
    from lab.evaluation.__main__ import main

    assert "--blur must be 0 or more pixels, not -1" in refusal(
        main, ["--rows", "blurred", "--blur", "-1"], capsys
    )
