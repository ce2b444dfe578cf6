"""Signals the voting side listens to, so moderation never reaches into vote storage itself."""

from django.dispatch import Signal

# Sent after commit when a moderator approves a held prompt that is now a candidate of the open round.
# kwargs: prompt (voting.Prompt, with .round set to the open round). A receiver must make it votable
# (e.g. add it to the round's candidate set in Redis); the `candidate` event to viewers follows.
prompt_approved = Signal()
