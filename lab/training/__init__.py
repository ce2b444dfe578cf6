"""`make model`: the default model trained from nothing, in stages, each resumable and seeded.

    python -m lab.training vae          # 1. the autoencoder (frames first, then short clips)
    python -m lab.training transformer  # 2. text encoder and transformer on the VAE's latents
    python -m lab.training decoder      # 3. the VAE's decoder alone, on the latents the transformer knows
    python -m lab.evaluation            # the held-out evaluation (docs/model.md's table)

Each stage checkpoints into var/training/ every few minutes and picks up where it stopped; each writes its
part into the model folder (generation/model/, fp16) only when it beats the part already there, by the
evaluation, measured on both in the same run (model_folder.keep_if_better).
"""

import os
from pathlib import Path

VAR = Path(os.environ.get("VAR_DIR", "var")) / "training"
