"""The moderation policy: what may go on air (the gate, blocked terms, levels, bans, lockdown).

Voting uses it; it never imports voting. It reads viewers and prompts by their ids and text only.
"""
