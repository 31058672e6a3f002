"""Where the random generators stood when a recorded call started, put back for its replay.

A goal function that draws random numbers (dropout, a sampled noise term, a Hessian
estimate) gives the recorded result only when it draws the same numbers. The recorder
(`lmr_author.authoring.fixtures`) keeps, in a fixture's ``"random"``, the state of each
global generator the golden call drew from (Python's ``random``, NumPy's, torch's), in
the replay format (`lmr_author.domain.replay_codec`); `restore_file` sets them again
right before the replayed call. Generators the call did not draw from are left alone.

Like the codec, this file is copied beside the replay tests that need it (as
``unit_test/lmr_random.py``, next to ``lmr_replay.py``), so it imports the codec by that
name there, and no other lmr_author module.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

try:  # beside a replay test: the codec's copy
    import lmr_replay as codec  # type: ignore[import-not-found]
except ImportError:  # in the toolkit
    from lmr_author.domain import replay_codec as codec

#: The document key of a fixture's starting states.
RANDOM_KEY = "random"


def restore(text: str | bytes) -> None:
    """Set the generators a fixture (its document ``text``) says its call drew from."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise codec.CodecError(f"not JSON: {error}") from None
    states = document.get(RANDOM_KEY, {}) if isinstance(document, dict) else {}
    if not isinstance(states, dict):
        raise codec.CodecError("a fixture's random states are a mapping")
    for name, data in states.items():
        state: Any = codec.decode(data, allow_objects=True)
        try:
            if name == "random":
                import random

                random.setstate(state)
            elif name == "numpy":
                importlib.import_module("numpy").random.set_state(state)
            elif name == "torch":
                importlib.import_module("torch").set_rng_state(state)
        except (TypeError, ValueError, RuntimeError, ImportError) as error:
            raise codec.CodecError(f"the {name} random state cannot be set: {error}") from None


def restore_file(path: str) -> None:
    """`restore` of the fixture at ``path``."""
    with open(path, encoding="utf-8") as handle:
        restore(handle.read())
