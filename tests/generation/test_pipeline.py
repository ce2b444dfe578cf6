"""The pipeline the default model renders through: diffusers' LTXConditionPipeline, mended for a transformer
whose token is 2x2 latent cells."""

import numpy as np
import pytest
import torch
from diffusers import FlowMatchEulerDiscreteScheduler, LTXConditionPipeline

from generation.pipeline import PatchedLTXConditionPipeline as Pipeline
from lab.training.architecture import (
    HEIGHT,
    LATENT_CHANNELS,
    SPATIAL,
    TOKEN_CELLS,
    WIDTH,
    build_transformer,
    build_vae,
)
from lab.training.text_encoder import build_text_encoder, build_tokenizer

CELLS = (3, HEIGHT // SPATIAL, WIDTH // SPATIAL)  # latent frames, rows, columns


def test_unpacking_returns_the_latents_that_were_packed():
    latents = torch.randn(2, LATENT_CHANNELS, *CELLS)
    packed = Pipeline._pack_latents(latents, TOKEN_CELLS, 1)
    assert packed.shape[-1] == LATENT_CHANNELS * TOKEN_CELLS**2
    # The pipeline passes the latent grid's size, as it does at the end of a render.
    assert torch.equal(Pipeline._unpack_latents(packed, *CELLS, TOKEN_CELLS, 1), latents)


def test_each_tokens_coordinates_are_its_first_cell():
    grid = torch.stack(torch.meshgrid(*(torch.arange(n) for n in CELLS), indexing="ij"))[None].float()
    first_cells = Pipeline._pack_latents(grid, TOKEN_CELLS, 1)[..., :: TOKEN_CELLS**2]  # (1, tokens, 3)
    ids = Pipeline._prepare_video_ids(1, *CELLS, TOKEN_CELLS, 1)
    assert torch.equal(ids[0].T.float(), first_cells[0])


def test_with_one_cell_a_token_it_gives_what_diffusers_gives():
    assert torch.equal(
        Pipeline._prepare_video_ids(2, *CELLS), LTXConditionPipeline._prepare_video_ids(2, *CELLS)
    )
    packed = Pipeline._pack_latents(torch.randn(1, 4, *CELLS))
    assert torch.equal(
        Pipeline._unpack_latents(packed, *CELLS), LTXConditionPipeline._unpack_latents(packed, *CELLS)
    )


@pytest.fixture
def pipe():
    torch.manual_seed(0)
    tokenizer = build_tokenizer()
    pipeline = Pipeline(
        transformer=build_transformer().eval(),
        vae=build_vae().eval(),
        text_encoder=build_text_encoder(len(tokenizer)).eval(),
        tokenizer=tokenizer,
        scheduler=FlowMatchEulerDiscreteScheduler(),
    )
    pipeline.set_progress_bar_config(disable=True)
    return pipeline


def test_it_renders_the_vaes_latents_plain_and_continuing_a_clip(pipe):
    from diffusers.pipelines.ltx.pipeline_ltx_condition import LTXVideoCondition

    torch.set_num_threads(1)
    ask = {
        "width": WIDTH,
        "height": HEIGHT,
        "num_frames": 17,
        "num_inference_steps": 2,
        "output_type": "latent",
    }
    plain = pipe(prompt="a cat", generator=torch.Generator().manual_seed(1), **ask).frames
    assert plain.shape == (1, LATENT_CHANNELS, *CELLS)
    lead = torch.from_numpy(np.random.default_rng(0).random((9, 3, HEIGHT, WIDTH), dtype=np.float32))
    condition = [LTXVideoCondition(video=lead, frame_index=0, strength=1.0)]  # type: ignore[arg-type]
    continued = pipe(prompt="a cat", conditions=condition, generator=torch.Generator().manual_seed(1), **ask)
    assert continued.frames.shape == plain.shape
    assert not torch.equal(continued.frames[:, :, :2], plain[:, :, :2])  # the lead frames follow the clip
