"""The moderator's desk: the panel, its actions, the moderators' socket, the audit log and the admin.

It uses voting (prompts, rounds, clips) and the policy; nothing below it imports the desk.
"""
