"""How good the default model is: the automatic judge (judge.py), the held-out evaluation's rows
(rows.py), continuity across a clip boundary (continuity.py); `python -m lab.evaluation` prints the table."""
