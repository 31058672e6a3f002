"""The durable label store: SQLite (standard library) so no label is lost to a crash.

The database runs in WAL mode with ``synchronous=FULL``: when `LabelStore.add` returns,
the label has been committed and fsync'ed, so killing the process (or the machine) at any
moment afterwards loses nothing. History is kept: re-labelling an item adds a row, and
the latest row per annotator and item is the one that counts. Several processes may use
one store (SQLite locks; a busy timeout waits instead of failing), and one connection is
shared by threads behind a lock so a Textual worker can write while the UI reads.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from types import TracebackType

from lmr_author.errors import UserError
from lmr_author.labels.model import ItemKey, Label
from lmr_author.locations import data_dir

STORE_FILE = "labels.sqlite"
SCHEMA_VERSION = 1
SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS labels (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    annotator TEXT NOT NULL,
    system TEXT NOT NULL,
    task TEXT NOT NULL,
    implementation INTEGER NOT NULL CHECK (implementation >= 1),
    label INTEGER NOT NULL CHECK (label BETWEEN 1 AND 3),
    comment TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    candidate_sha256 TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS labels_by_item
    ON labels (annotator, system, task, implementation, id);
"""

_COLUMNS = "annotator, system, task, implementation, label, comment, created_at, candidate_sha256"

#: The latest row of every (annotator, item).
_LATEST = f"""
SELECT {_COLUMNS} FROM labels WHERE id IN (
    SELECT MAX(id) FROM labels GROUP BY annotator, system, task, implementation
)
"""


def default_store_path() -> Path:
    """``<data dir>/labels.sqlite`` (XDG data folder; ``LMR_AUTHOR_DATA_DIR`` overrides)."""
    return data_dir() / STORE_FILE


def is_store_file(path: Path) -> bool:
    """True when ``path`` is an SQLite database (by its header), e.g. a label store."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


class LabelStore:
    """Human labels of several annotators, durable as soon as `add` returns.

    Use as a context manager or call `close`. ``path=None`` opens `default_store_path`.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self._lock = threading.Lock()
        self._conn = self._open(self.path)

    # -- opening -----------------------------------------------------------------

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        if path.exists() and path.is_dir():
            raise UserError(
                "is a folder, not a label store",
                file=path,
                hint="Give the path of a .sqlite file (it is created if missing).",
            )
        if path.exists() and path.stat().st_size > 0 and not is_store_file(path):
            raise UserError(
                "is not a label store (not an SQLite database)",
                file=path,
                hint="Label files in the published JSON shape are read with "
                "'lmr-author labels import FILE'.",
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                str(path), timeout=30.0, check_same_thread=False, isolation_level=None
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA busy_timeout=30000")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                conn.close()
                raise UserError(
                    f"the label store has schema version {version}, newer than this "
                    f"lmr-author understands ({SCHEMA_VERSION})",
                    file=path,
                    hint="Upgrade lmr-author.",
                )
            conn.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.Error as error:
            raise UserError(
                f"cannot open the label store: {error}",
                file=path,
                hint="Check that the file is a label store and that its folder is writable.",
            ) from error
        return conn

    # -- writing -------------------------------------------------------------------

    def add(self, label: Label) -> None:
        """Record ``label`` durably (committed and fsync'ed when this returns)."""
        with self._lock:
            self._write_many([label])

    def add_many(self, labels: list[Label]) -> int:
        """Record ``labels`` in one transaction (all or none); return how many."""
        with self._lock:
            self._write_many(labels)
        return len(labels)

    def add_changed(self, labels: list[Label]) -> list[Label]:
        """Record, in one transaction, the labels that differ from what already counts.

        A label whose value, comment and candidate hash equal the annotator's latest label
        of the item is left out, so importing the same file twice adds nothing. Returns
        the labels recorded.
        """
        new = [label for label in labels if not self._repeats(label)]
        self.add_many(new)
        return new

    def _repeats(self, label: Label) -> bool:
        latest = self.latest(label.annotator, label.item)
        return latest is not None and (
            latest.label,
            latest.comment,
            latest.candidate_sha256,
        ) == (label.label, label.comment, label.candidate_sha256)

    def _write_many(self, labels: list[Label]) -> None:
        rows = [
            (
                x.annotator,
                x.system,
                x.task,
                x.implementation,
                x.label,
                x.comment,
                x.created_at,
                x.candidate_sha256,
            )
            for x in labels
        ]
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany(
                    f"INSERT INTO labels ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        except sqlite3.Error as error:
            raise UserError(
                f"cannot write to the label store: {error}",
                file=self.path,
                hint="Check free disk space and that the file is writable.",
            ) from error

    # -- reading -------------------------------------------------------------------

    def latest(self, annotator: str, item: ItemKey) -> Label | None:
        """The label that counts for ``annotator`` on ``item``, or None if unlabelled."""
        system, task, implementation = item
        rows = self._query(
            f"SELECT {_COLUMNS} FROM labels WHERE annotator = ? AND system = ? AND task = ? "
            "AND implementation = ? ORDER BY id DESC LIMIT 1",
            (annotator, system, task, implementation),
        )
        return rows[0] if rows else None

    def history(self, annotator: str, item: ItemKey) -> list[Label]:
        """Every label ``annotator`` gave ``item``, oldest first."""
        system, task, implementation = item
        return self._query(
            f"SELECT {_COLUMNS} FROM labels WHERE annotator = ? AND system = ? AND task = ? "
            "AND implementation = ? ORDER BY id",
            (annotator, system, task, implementation),
        )

    def labels(self, annotator: str | None = None) -> list[Label]:
        """The latest label per annotator and item (of one annotator, or of all)."""
        if annotator is None:
            return self._query(_LATEST + " ORDER BY annotator, system, task, implementation")
        return self._query(
            f"SELECT * FROM ({_LATEST}) WHERE annotator = ? ORDER BY system, task, implementation",
            (annotator,),
        )

    def annotators(self) -> list[str]:
        """Names of everyone who has labelled something, sorted."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT DISTINCT annotator FROM labels ORDER BY annotator"
            ).fetchall()
        return [str(row[0]) for row in rows]

    def _query(self, sql: str, params: tuple[object, ...] = ()) -> list[Label]:
        try:
            with self._lock:
                rows = self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise UserError(f"cannot read the label store: {error}", file=self.path) from error
        return [
            Label(
                annotator=row[0],
                system=row[1],
                task=row[2],
                implementation=int(row[3]),
                label=int(row[4]),
                comment=row[5],
                created_at=row[6],
                candidate_sha256=row[7],
            )
            for row in rows
        ]

    # -- lifetime ------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> LabelStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
