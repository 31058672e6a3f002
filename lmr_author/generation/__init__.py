"""Generation: producing candidate implementations with the paper's standard prompting.

`prompt` builds the prompt of the paper's appendix D (and its ablations) with a token
budget; `runner` plans and asks (through the shared client of `lmr_author.llm`), `predictions`
owns the predictions file it writes, `samples` names the systems of several samples.
"""
