"""`make model`: the default model trained from nothing, in stages, each resumable and seeded.

    python -m generation.training vae          # 1. the autoencoder (frames first, then short clips)
    python -m generation.training transformer  # 2. text encoder and transformer on the VAE's latents
    python -m generation.training evaluate     # 3. the held-out evaluation, written to docs/model.md

Each stage checkpoints into var/training/ every few minutes and picks up where it stopped; each writes its
part into the model folder (generation/model/, fp16) whenever it beats the part already there.
"""
