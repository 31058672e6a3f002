"""lmr-author: build, validate and score paper-reproduction benchmarks (LMR-Bench style).

The public, headless API is re-exported here; the command line (`lmr_author.cli`) and the
Textual apps (`lmr_author.tui`) are thin clients of it.
"""

from lmr_author.domain.task import Implementation, Task, load_task, save_task
from lmr_author.util.errors import UserError

__version__ = "0.1.0"

__all__ = [
    "Implementation",
    "Task",
    "UserError",
    "__version__",
    "load_task",
    "save_task",
]
