"""Diffusion forcing: a sigma a latent frame, one pass under the block-causal mask, and nothing a frame
predicts depends on the frames after it."""

import numpy as np
import pytest
import torch

from generation.block_causal import unpacked
from generation.pipeline import velocity
from lab.training.architecture import LATENT_CHANNELS, LATENT_GRID
from lab.training.diffusion_forcing import DiffusionForcingTrainer, TeacherForcingTrainer
from lab.training.transformer import Latents, Trainer, pack
from tests.helpers.commands import refusal
from tests.helpers.training import losses_on_one_batch

FRAMES = 4


def clips(count: int = 4) -> Latents:
    g = torch.Generator().manual_seed(0)
    grid = (FRAMES, *LATENT_GRID[1:])
    return Latents(
        x0=torch.randn(count, LATENT_CHANNELS, *grid, generator=g).half(),
        masks=torch.rand(count, *grid, generator=g).half(),
        captions=[["a cat bouncing in the snow"], ["a rocket rising in space"]] * (count // 2),
        continuation=torch.tensor([True, False] * (count // 2)),
    )


def test_each_latent_frame_draws_its_own_noise_level_and_a_plain_clip_shares_one():
    forcing = DiffusionForcingTrainer(clips(), threads=1, batch=4, window=2)
    rng = np.random.default_rng(0)
    levels = torch.cat([forcing.noise_levels(rng) for _ in range(500)])  # 2,000 clips
    assert levels.shape == (2000, FRAMES) and ((levels >= 0) & (levels <= 1)).all()
    between_frames = np.corrcoef(levels.T.numpy())[np.triu_indices(FRAMES, 1)]
    assert np.abs(between_frames).max() < 0.1  # independent
    assert levels.mean() > 0.6  # each from the shifted schedule, which leans toward noise
    plain = Trainer(clips(), threads=1, batch=4).noise_levels(rng)
    assert plain.shape == (4, FRAMES) and (plain == plain[:, :1]).all()


def test_a_clean_past_is_given_to_the_share_of_clips_asked_and_carries_no_loss(monkeypatch):
    forcing = DiffusionForcingTrainer(clips(), threads=1, batch=4, window=2, clean_context=0.5)
    levels = torch.cat([forcing.noise_levels(np.random.default_rng(seed)) for seed in range(250)])
    clean = levels == 0
    with_past = clean.any(dim=1)
    assert 0.4 < with_past.float().mean() < 0.6
    assert clean[:, 0].equal(with_past) and not clean[:, -1].any()  # a prefix, never the whole clip
    assert (clean[:, 1:] <= clean[:, :-1]).all()  # no noisy frame before a clean one
    seen = {}

    def predict(xt, prompt, timestep, index, rng):  # type: ignore[no-untyped-def]
        seen["clean"] = timestep == 0
        return torch.zeros_like(xt)

    monkeypatch.setattr(forcing, "predict", predict)
    monkeypatch.setattr(forcing, "lead_tokens", 0)  # no continuation: only the clean past is clean
    monkeypatch.setattr(forcing, "clean_context", 1.0)
    torch.manual_seed(0)  # the noise
    loss = forcing.loss(np.random.default_rng(0))
    assert seen["clean"].any()
    # the same batch with the clean frames' errors made huge: the loss does not move
    monkeypatch.setattr(forcing, "predict", lambda xt, *a: torch.where(seen["clean"][..., None], 1e6, 0.0))
    torch.manual_seed(0)
    assert forcing.loss(np.random.default_rng(0)) == loss


def test_a_past_given_at_a_context_noise_carries_that_sigma_as_the_cache_will():
    forcing = DiffusionForcingTrainer(
        clips(), threads=1, batch=4, window=2, clean_context=1.0, context_noise=0.1
    )
    levels = torch.cat([forcing.noise_levels(np.random.default_rng(seed)) for seed in range(50)])
    past = torch.isclose(levels, torch.tensor(0.1))
    assert past[:, 0].all() and not past[:, -1].any()  # every clip has a past, never the whole clip
    assert (past[:, 1:] <= past[:, :-1]).all() and not (levels == 0).any()
    with pytest.raises(ValueError, match="context_noise"):
        DiffusionForcingTrainer(clips(), threads=1, batch=4, window=2, context_noise=1.0)


def test_the_transformer_reads_each_frames_noise_level_on_each_of_its_tokens(monkeypatch):
    trainer = DiffusionForcingTrainer(clips(), threads=1, batch=2, window=2)
    seen = {}

    def predict(xt, prompt, timestep, index, rng):  # type: ignore[no-untyped-def]
        seen["timestep"] = timestep
        return torch.zeros_like(xt)

    monkeypatch.setattr(trainer, "predict", predict)
    trainer.loss(np.random.default_rng(1))
    per_frame = seen["timestep"].unflatten(1, (FRAMES, -1))
    assert (per_frame == per_frame[..., :1]).all()  # one level across a frame's tokens
    plain = per_frame[~trainer.data.continuation[: len(per_frame)], :, 0]
    assert plain.numel() and (plain.std(dim=-1) > 0).all()  # several levels across a clip's frames


def test_a_few_steps_under_the_mask_lower_the_loss():
    trainer = DiffusionForcingTrainer(clips(), threads=1, batch=4, window=2)
    losses = losses_on_one_batch(trainer, steps=25)
    assert losses[-1] < 0.85 * losses[0]


def predictions(trainer: Trainer, later: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The prediction for a clip, and for the same clip with another noise and level in its last frame
    (`later`) or its first."""
    g = torch.Generator().manual_seed(2)
    x = pack(torch.randn(1, LATENT_CHANNELS, FRAMES, *LATENT_GRID[1:], generator=g), trainer.cells)
    tokens = x.shape[1] // FRAMES
    timestep = torch.tensor([[900.0, 400.0, 100.0, 700.0]]).repeat_interleave(tokens, dim=1)
    prompt = (torch.randn(1, 4, 64, generator=g), torch.ones(1, 4, dtype=torch.long))
    other, other_timestep = x.clone(), timestep.clone()
    changed = slice(-tokens, None) if later else slice(0, tokens)
    other[:, changed] = torch.randn(other[:, changed].shape, generator=g)
    other_timestep[:, changed] = 50.0
    trainer.coords = trainer.coords[:1]
    with torch.no_grad():
        rng = np.random.default_rng(0)
        return trainer.predict(x, prompt, timestep, torch.tensor([0]), rng), trainer.predict(
            other, prompt, other_timestep, torch.tensor([0]), rng
        )


def test_no_frame_under_the_mask_reads_a_later_frame_but_the_bidirectional_model_does():
    forcing = DiffusionForcingTrainer(clips(), threads=1, batch=2, window=2)
    before, after = predictions(forcing, later=True)
    tokens = before.shape[1] // FRAMES
    assert torch.equal(before[:, :-tokens], after[:, :-tokens])  # the first three frames are untouched
    assert not torch.allclose(before[:, -tokens:], after[:, -tokens:])
    before, after = predictions(forcing, later=False)
    assert not torch.allclose(before[:, tokens:], after[:, tokens:])  # later frames read the first (the sink)
    plain = Trainer(clips(), threads=1, batch=2)
    before, after = predictions(plain, later=True)
    assert not torch.allclose(before[:, :-tokens], after[:, :-tokens])


def made_against_the_cache(trainer: TeacherForcingTrainer, noisy, timestep, clean, prompt) -> torch.Tensor:
    """Each frame of `noisy` predicted as make_blocks predicts it: a block pass reading the cache, then its
    clean frame's pass at timestep 0 filling it."""
    tokens, out = trainer.causal.grid.tokens, []
    for frame in range(FRAMES):
        at = slice(frame * tokens, (frame + 1) * tokens)
        with trainer.causal.block(frame) as coords:
            out.append(velocity(trainer.transformer, noisy[:, at], prompt, timestep[:, at], coords))
        with trainer.causal.block(frame, fill=True) as coords:
            velocity(trainer.transformer, clean[:, at], prompt, torch.zeros_like(timestep[:, at]), coords)
    return torch.cat(out, dim=1)


def test_teacher_forcing_denoises_every_frame_as_generation_does_against_the_cache():
    trainer = TeacherForcingTrainer(clips(), threads=1, batch=2, window=1)  # the cache evicts frame 1 for 3
    trainer.transformer.eval()
    g = torch.Generator().manual_seed(3)
    clean = pack(trainer.data.x0[:1].float(), trainer.cells)
    noisy = torch.randn(clean.shape, generator=g)
    timestep = torch.tensor([[900.0, 400.0, 100.0, 700.0]]).repeat_interleave(clean.shape[1] // FRAMES, dim=1)
    prompt = (torch.randn(1, 4, 64, generator=g), torch.ones(1, 4, dtype=torch.long))
    with torch.no_grad():
        taught = trainer.predict(noisy, prompt, timestep, torch.tensor([0]), np.random.default_rng(0))
        made = made_against_the_cache(trainer, noisy, timestep, clean, prompt)
    assert (taught - made).abs().max() < 1e-5
    # a frame never reads its own clean copy: a changed clean frame moves only the frames after it
    tokens, original = trainer.causal.grid.tokens, trainer.data
    for changed, untouched in ((2, [0, 1, 2]), (3, [0, 1, 2, 3])):
        other = original.x0.clone()
        other[0, :, changed] = torch.randn(other[0, :, changed].shape, generator=g).half()
        trainer.data = Latents(other, original.masks, original.captions, original.continuation)
        with torch.no_grad():
            moved = trainer.predict(noisy, prompt, timestep, torch.tensor([0]), np.random.default_rng(0))
        same = [
            torch.equal(moved[:, f * tokens : (f + 1) * tokens], taught[:, f * tokens : (f + 1) * tokens])
            for f in range(FRAMES)
        ]
        assert [f for f in range(FRAMES) if same[f]] == untouched


def test_teacher_forcing_refuses_a_share_of_clean_pasts():
    with pytest.raises(ValueError, match="clean_context"):
        TeacherForcingTrainer(clips(), threads=1, batch=2, window=2, clean_context=0.5)


def test_a_few_teacher_forced_steps_lower_the_loss():
    trainer = TeacherForcingTrainer(clips(), threads=1, batch=4, window=2)
    losses = losses_on_one_batch(trainer, steps=25)
    assert losses[-1] < 0.85 * losses[0]


def test_blocks_unpack_to_the_latents_they_were_packed_from():
    latents = torch.randn(1, LATENT_CHANNELS, FRAMES, *LATENT_GRID[1:])
    forcing = DiffusionForcingTrainer(clips(), threads=1, batch=2, window=2)
    packed = pack(latents, forcing.cells)
    blocks = list(packed.chunk(FRAMES, dim=1))
    assert torch.equal(unpacked(blocks, forcing.causal.grid), latents)


def test_the_shipped_model_makes_a_clip_block_by_block_as_the_renderer_airs_it():
    from generation.model_folder import MODEL_DIR
    from lab.evaluation.rows import AIRED, cases
    from lab.experiments.diffusion_forcing import made_in_blocks
    from lab.training.architecture import HEIGHT, WIDTH

    case = cases(1)[0]
    make = made_in_blocks(MODEL_DIR)
    frames = make(case)
    assert frames.shape == (AIRED, HEIGHT, WIDTH, 3) and frames.dtype == np.uint8
    assert np.array_equal(make(case), frames)  # the case's seed, and a fresh cache for each clip


def test_the_pilot_refuses_a_batch_larger_than_its_clips_before_anything_runs(capsys):
    from lab.experiments.diffusion_forcing import main

    assert "--batch above 0 and at most --clips" in refusal(main, ["--clips", "4", "--batch", "8"], capsys)
