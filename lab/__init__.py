"""The laboratory: how the default model (`MODEL_PRESET=world`) is made. Nothing in the product imports it
(an import contract in .importlinter); it imports the product, to render and judge as the worker does.

- `world/`: the world the model learns, emoji subjects moving over procedural settings, drawn from a seed;
- `training/`: `make model`'s stages, from nothing to the shipped folder (generation/model/);
- `evaluation/`: the judge and the held-out evaluation (`python -m lab.evaluation`);
- `experiments/`: measurements that decided the design (`python -m lab.experiments.<name>`);
- `ledger.md`: every run, one row each, kept or not, and why.
"""
