"""A learned second reader: what the rules approve and a linear model is confident is harmful is held for a
moderator, never refused (refusing stays the rules' job). reader.py is the model, training.py what it learns
from, everyday.py the plain prompts it must leave alone, crossval.py how its threshold was chosen and what
it adds (docs/moderation.md)."""
