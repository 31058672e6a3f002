"""Agent workspaces: what the paper's agent setting gives an agent, and what comes back.

``prepare`` writes one workspace per implementation (the paper, the masked repository
or its ablated form, ``INSTRUCTION.md``) and a manifest with the hash of every file as
prepared; ``collect`` reads the edited workspaces as data (never following a symlink),
takes only the goal function from each goal file and splices it into the pristine masked
file, and lists every other change an agent made. The prepared folder's layout and the
manifest belong to `lmr_author.workspaces.manifest`.
"""

from lmr_author.workspaces.collect import Change, CollectReport, ItemOutcome, collect_workspaces
from lmr_author.workspaces.manifest import (
    MANIFEST_FILE,
    Manifest,
    WorkspaceEntry,
    load_manifest,
)
from lmr_author.workspaces.prepare import prepare_workspaces

__all__ = [
    "MANIFEST_FILE",
    "Change",
    "CollectReport",
    "ItemOutcome",
    "Manifest",
    "WorkspaceEntry",
    "collect_workspaces",
    "load_manifest",
    "prepare_workspaces",
]
