"""What enters the system prompt: identity and standing rules (layer 0)."""
