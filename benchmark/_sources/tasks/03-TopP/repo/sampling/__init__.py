"""nucleus-sampling: decoding filters for stochastic text generation."""
