"""attribution-toolkit: gradient-based attributions for a small text classifier."""
