"""The Docker sandbox: build task images, run untrusted candidates, read verdicts.

Everything here talks to the engine through the docker SDK. Our images and containers
carry the label ``LABEL_KEY`` so that they can be listed and pruned.
"""

LABEL_KEY = "org.lmr-author.managed"
