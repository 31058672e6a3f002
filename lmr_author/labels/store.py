"""The durable label store: SQLite (standard library) so no label is lost to a crash.

The database runs in WAL mode with ``synchronous=FULL``: when `LabelStore.add` returns,
the label has been committed and fsync'ed, so killing the process (or the machine) at any
moment afterwards loses nothing. History is kept: re-labelling an item adds a row, and
the latest row per annotator and item is the one that counts. Clearing a label adds a
tombstone row (``cleared = 1``), so the latest row can say "no label" without deleting
what was given. Comment drafts (typed in the review app before the label key) live in
their own table, one per annotator and item, so a crash mid-comment loses nothing.
Several processes may use one store (SQLite locks; a busy timeout waits instead of
failing), and one connection is shared by threads behind a lock so a Textual worker can
write while the UI reads.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from lmr_author.errors import UserError
from lmr_author.labels.model import ItemKey, Label, now_iso
from lmr_author.locations import data_dir

STORE_FILE = "labels.sqlite"
#: 2 added the ``cleared`` tombstone column and the ``comment_drafts`` table.
SCHEMA_VERSION = 2
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
    candidate_sha256 TEXT NOT NULL DEFAULT '',
    cleared INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS labels_by_item
    ON labels (annotator, system, task, implementation, id);
CREATE TABLE IF NOT EXISTS comment_drafts (
    annotator TEXT NOT NULL,
    system TEXT NOT NULL,
    task TEXT NOT NULL,
    implementation INTEGER NOT NULL,
    comment TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (annotator, system, task, implementation)
);
"""

#: Version 1 stores lack the tombstone column; added before the schema script runs.
_MIGRATE_1_TO_2 = "ALTER TABLE labels ADD COLUMN cleared INTEGER NOT NULL DEFAULT 0"

_COLUMNS = "annotator, system, task, implementation, label, comment, created_at, candidate_sha256"

#: The latest row of every (annotator, item), unless that row clears the label.
_LATEST = f"""
SELECT {_COLUMNS} FROM labels WHERE cleared = 0 AND id IN (
    SELECT MAX(id) FROM labels GROUP BY annotator, system, task, implementation
)
"""


@dataclass(frozen=True)
class HistoryEntry:
    """One row of an item's history: a label given, or (``cleared``) the label removed."""

    label: Label
    cleared: bool = False


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
            conn.execute("BEGIN IMMEDIATE")
            columns = {row[1] for row in conn.execute("PRAGMA table_info(labels)")}
            if columns and "cleared" not in columns:
                conn.execute(_MIGRATE_1_TO_2)
            conn.execute("COMMIT")
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

    def clear(self, label: Label) -> None:
        """Remove ``label`` (the item's current label) durably; the item is unlabelled after.

        History keeps both the label and a tombstone row saying it was cleared.
        """
        with self._lock:
            self._write_many([label], cleared=True)

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

    def _write_many(self, labels: list[Label], *, cleared: bool = False) -> None:
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
                int(cleared),
            )
            for x in labels
        ]
        with self._transaction():
            self._conn.executemany(
                f"INSERT INTO labels ({_COLUMNS}, cleared) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One durable write: all of the body or nothing; sqlite errors as `UserError`."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield
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
        """The label that counts for ``annotator`` on ``item``; None if unlabelled or cleared."""
        entries = self._history(annotator, item, "DESC LIMIT 1")
        return entries[0].label if entries and not entries[0].cleared else None

    def history(self, annotator: str, item: ItemKey) -> list[Label]:
        """Every label ``annotator`` gave ``item``, oldest first (clearings left out)."""
        return [entry.label for entry in self.events(annotator, item) if not entry.cleared]

    def events(self, annotator: str, item: ItemKey) -> list[HistoryEntry]:
        """Every label given to ``item`` and every clearing of it, oldest first."""
        return self._history(annotator, item, "")

    def _history(self, annotator: str, item: ItemKey, order: str) -> list[HistoryEntry]:
        system, task, implementation = item
        sql = (
            f"SELECT {_COLUMNS}, cleared FROM labels WHERE annotator = ? AND system = ? "
            f"AND task = ? AND implementation = ? ORDER BY id {order}"
        )
        try:
            with self._lock:
                rows = self._conn.execute(sql, (annotator, system, task, implementation)).fetchall()
        except sqlite3.Error as error:
            raise UserError(f"cannot read the label store: {error}", file=self.path) from error
        return [HistoryEntry(_label_of(row), bool(row[8])) for row in rows]

    # -- comment drafts ------------------------------------------------------------

    def save_draft(self, annotator: str, item: ItemKey, comment: str) -> None:
        """Keep ``comment`` as the annotator's unsaved comment on ``item`` ("" removes it).

        Durable when this returns, like `add`.
        """
        system, task, implementation = item
        key = (annotator, system, task, implementation)
        if comment:
            sql = (
                "INSERT OR REPLACE INTO comment_drafts (annotator, system, task, "
                "implementation, comment, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
            )
            params: tuple[object, ...] = (*key, comment, now_iso())
        else:
            sql = (
                "DELETE FROM comment_drafts WHERE annotator = ? AND system = ? AND task = ? "
                "AND implementation = ?"
            )
            params = key
        self._execute(sql, params)

    def drafts(self, annotator: str) -> dict[ItemKey, str]:
        """The comment drafts of ``annotator``, by item."""
        try:
            with self._lock:
                rows = self._conn.execute(
                    "SELECT system, task, implementation, comment FROM comment_drafts "
                    "WHERE annotator = ?",
                    (annotator,),
                ).fetchall()
        except sqlite3.Error as error:
            raise UserError(f"cannot read the label store: {error}", file=self.path) from error
        return {ItemKey(row[0], row[1], int(row[2])): str(row[3]) for row in rows}

    def _execute(self, sql: str, params: tuple[object, ...]) -> None:
        with self._lock, self._transaction():
            self._conn.execute(sql, params)

    def labels(self, annotator: str | None = None) -> list[Label]:
        """The latest label per annotator and item (of one annotator, or of all)."""
        if annotator is None:
            return self._query(_LATEST + " ORDER BY annotator, system, task, implementation")
        return self._query(
            f"SELECT * FROM ({_LATEST}) WHERE annotator = ? ORDER BY system, task, implementation",
            (annotator,),
        )

    def annotators(self) -> list[str]:
        """Names of everyone who has labelled something (even if cleared since), sorted."""
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
        return [_label_of(row) for row in rows]

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


def _label_of(row: tuple[object, ...]) -> Label:
    """A `Label` from the first eight columns of a row (the order of ``_COLUMNS``)."""
    return Label(
        annotator=str(row[0]),
        system=str(row[1]),
        task=str(row[2]),
        implementation=int(str(row[3])),
        label=int(str(row[4])),
        comment=str(row[5]),
        created_at=str(row[6]),
        candidate_sha256=str(row[7]),
    )
