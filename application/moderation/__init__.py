"""Moderation: people's reports of messages and people, the moderators who act on them, and the
record of every moderator's action."""
