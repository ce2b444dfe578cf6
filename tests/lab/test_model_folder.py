"""The model folder as the lab writes it: a run's part ships only when it beats the part already there."""

import json
from pathlib import Path

import pytest
import torch

from lab.training.architecture import build_vae
from lab.training.model_folder import fits, keep_if_better, record_steps, save_part


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    torch.manual_seed(0)
    shipped, candidate = tmp_path / "shipped", tmp_path / "candidate"
    save_part(build_vae(), "vae", shipped)
    record_steps("vae", 100, shipped)
    save_part(build_vae(), "vae", candidate)  # other random weights: another part
    record_steps("vae", 200, candidate)
    return shipped, candidate


def weights(folder: Path) -> bytes:
    return (folder / "vae" / "diffusion_pytorch_model.safetensors").read_bytes()


@pytest.mark.parametrize(("candidate_score", "ships"), [(0.4, False), (0.5, False), (0.6, True)])
def test_a_run_replaces_the_shipped_part_only_when_it_scores_higher(folders, candidate_score, ships):
    shipped, candidate = folders
    before = weights(shipped)
    scores = {shipped: 0.5, candidate: candidate_score}

    kept = keep_if_better(("vae", "training.json"), scores.__getitem__, "judged", shipped, candidate)

    assert kept is ships
    assert weights(shipped) == (weights(candidate) if ships else before)
    assert json.loads((shipped / "training.json").read_text())["vae"] == (200 if ships else 100)


def test_a_shipped_part_of_another_architecture_is_replaced_without_judging_it(folders):
    shipped, candidate = folders
    config = shipped / "vae" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "latent_channels": 48}))
    assert not fits("vae", shipped)

    def judged(_: Path) -> float:
        raise AssertionError("a part that no longer fits is not judged")

    assert keep_if_better(("vae",), judged, "judged", shipped, candidate)
    assert fits("vae", shipped) and weights(shipped) == weights(candidate)
