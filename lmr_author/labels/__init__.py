"""Human three-way labels: the durable store, import/export, and agreement statistics.

Light to import (no numpy, statsmodels or Textual): the review TUI uses the store and the
model; `lmr_author.labels.agreement` (the statistics) is imported by its callers.
"""

from lmr_author.labels.model import (
    InvalidLabelError,
    ItemKey,
    Label,
    now_iso,
)
from lmr_author.labels.published import read_label_file, write_label_file
from lmr_author.labels.store import LabelStore, default_store_path

__all__ = [
    "InvalidLabelError",
    "ItemKey",
    "Label",
    "LabelStore",
    "default_store_path",
    "now_iso",
    "read_label_file",
    "write_label_file",
]
