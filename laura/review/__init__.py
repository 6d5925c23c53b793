"""Inline review: comment threads on a file pane's source lines, and the
payload that carries them to the agent as one bracketed paste."""
