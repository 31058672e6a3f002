"""Files the package ships beside its code: JSON Schemas and templates.

They live at the top of the repository (``schemas/``, ``templates/``), where users and
other tools find them; ``lmr_author/data/`` links to both, so a wheel carries copies
and an editable install reads the originals. One function says where a file is.
"""

from __future__ import annotations

from pathlib import Path

from lmr_author.util.errors import UserError

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def resource_path(kind: str, name: str) -> Path:
    """The shipped file ``name`` of ``kind`` ("schemas" or "templates")."""
    path = DATA_DIR / kind / name
    if not path.is_file():
        raise UserError(
            f"the packaged file {kind}/{name} is missing",
            file=path,
            hint="Reinstall lmr-author from a complete source tree or wheel.",
        )
    return path
