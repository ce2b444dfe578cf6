"""The clip: one round's winner as video, from the conductor through the worker to the broadcaster.

What generation and streaming share lives here and nowhere else: the model, every status change (each guarded,
each sending its one event: `lifecycle`), and the frames store (`frames`). Voting creates clips; this app
knows rounds and prompts only through the model's foreign keys, so it sits below voting.
"""
