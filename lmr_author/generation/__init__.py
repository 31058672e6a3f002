"""Generation: producing candidate implementations with the paper's standard prompting.

`lmr_author.generation.prompt` builds the prompt of the paper's appendix D (and its
ablations) with a token budget; the client, cache and predictions writer come with the
``generate`` command.
"""
