"""rope-attention: rotary position embedding for self-attention."""
