"""The pieces of ``kenning chat`` (the command itself is ``kenning.cli.chat_cmd``):
approvals and permission modes, live status, checkpoints for /undo, slash commands."""
