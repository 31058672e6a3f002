"""Sub-commands of `lmr-author`, one module each (see `lmr_author.cli`)."""
