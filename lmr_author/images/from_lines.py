"""Dockerfile text: which base images it builds on, and the same file on another base.

Used by the image builder (``--base-image``) and by the CA handling of builds behind a
TLS-inspecting proxy, which must know the bases a build will use before it starts.
"""

from __future__ import annotations

import re

FROM_LINE = re.compile(
    r"^(?P<lead>\s*FROM\s+(?:--\S+\s+)*)(?P<image>\S+)(?P<rest>(?:\s+AS\s+(?P<alias>\S+))?\s*)$",
    re.IGNORECASE,
)


def rewrite_from(dockerfile: str, base_image: str | None) -> tuple[str, list[str]]:
    """Replace the base of each ``FROM`` (not naming an earlier stage) by ``base_image``.

    Returns the new text and the external base images it now names.
    """
    stages: set[str] = set()
    bases: list[str] = []
    out: list[str] = []
    for line in dockerfile.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        match = FROM_LINE.match(body)
        if match is None:
            out.append(line)
            continue
        image = match.group("image")
        alias = match.group("alias")
        if image.lower() not in stages:
            if base_image is not None:
                image = base_image
                line = match.group("lead") + image + match.group("rest") + line[len(body) :]
            if image not in bases:
                bases.append(image)
        if alias:
            stages.add(alias.lower())
        out.append(line)
    return "".join(out), bases
