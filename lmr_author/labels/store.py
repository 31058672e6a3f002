"""The durable label store: SQLite (standard library) so no label is lost to a crash.

The database runs in WAL mode with ``synchronous=FULL``: when `LabelStore.add` returns,
the label has been committed and fsync'ed, so killing the process (or the machine) at any
moment afterwards loses nothing. History is kept: re-labelling an item adds a row, and
the latest row per annotator and item is the one that counts. Clearing a label adds a
tombstone row (``cleared = 1``), so the latest row can say "no label" without deleting
what was given. Comment drafts (typed in the review app before the label key) live in
their own table, one per annotator and item, so a crash mid-comment loses nothing.
One item is stored under one spelling: a task is named by its paper index, and the
store keeps the richest spelling it has seen for it (``01-DPO`` over ``01`` or ``1``;
`lmr_author.domain.identity`), so a label file imported with and without ``--benchmark`` holds
each label once. Stores written before version 3 are merged on opening: their tasks are
renamed the same way and a row that repeats the item's previous row is dropped.
Several processes may use one store (SQLite locks; a busy timeout waits instead of
failing), and one connection is shared by threads behind a lock so a Textual worker can
write while the UI reads.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType

from lmr_author.domain.identity import canonical_task, paper_index, task_name
from lmr_author.labels.model import ItemKey, Label, now_iso
from lmr_author.util.errors import UserError
from lmr_author.util.locations import data_dir

STORE_FILE = "labels.sqlite"
#: 2 added the ``cleared`` tombstone column and the ``comment_drafts`` table; 3 merged the
#: spellings of one task (``1`` and ``01-DPO``) into one.
SCHEMA_VERSION = 3
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
            if columns and version < 3:
                merge_task_spellings(conn)
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

    def add_changed(self, labels: list[Label]) -> list[Label]:
        """Record, in one transaction, the labels that differ from what already counts.

        A label whose value, comment and candidate hash equal the annotator's latest label
        of the item is left out, so importing the same file twice adds nothing (even
        under another spelling of its task, which is then given the richer spelling).
        Returns the labels recorded.
        """
        with self._lock, self._transaction():
            spelt = [self._spelt(label, rename=True) for label in labels]
            new = [label for label in spelt if not self._repeats(label)]
            self._insert(new, cleared=False)
        return new

    def _repeats(self, label: Label) -> bool:
        entries = self._rows(label.annotator, label.item, "DESC LIMIT 1")
        latest = entries[0].label if entries and not entries[0].cleared else None
        return latest is not None and (
            latest.label,
            latest.comment,
            latest.candidate_sha256,
        ) == (label.label, label.comment, label.candidate_sha256)

    def _write_many(self, labels: list[Label], *, cleared: bool = False) -> None:
        with self._transaction():
            labels = [self._spelt(label, rename=True) for label in labels]
            self._insert(labels, cleared)

    def _insert(self, labels: list[Label], cleared: bool) -> None:
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
        self._conn.executemany(
            f"INSERT INTO labels ({_COLUMNS}, cleared) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    # -- one spelling per task -------------------------------------------------------

    def _spelt(self, label: Label, *, rename: bool = False) -> Label:
        """``label`` with its task spelt as the store spells that task."""
        task = self._task(label.task, rename=rename)
        return label if task == label.task else replace(label, task=task)

    def _item(self, item: ItemKey) -> ItemKey:
        return ItemKey(item[0], self._task(item[1]), item[2])

    def _matching(self, task: str) -> list[str]:
        """The stored spellings that are ``task``: its own, and bare numbers a named
        spelling would rename on the next write (``01`` for ``01-DPO``)."""
        index = paper_index(task)
        if index is None:
            return [task]
        known = self._spellings(index)
        chosen = choose_spelling(task, known)
        named = {canonical_task(k) for k in [*known, chosen] if task_name(k)}
        if named == {chosen}:
            return [chosen, *(k for k in known if not task_name(k))]
        return [chosen]

    def _task(self, task: str, *, rename: bool = False) -> str:
        """The store's spelling of ``task``; with ``rename`` (inside a write transaction)
        rows spelt more poorly (a bare number where ``task`` has a name) are renamed."""
        index = paper_index(task)
        if index is None:
            return task
        known = self._spellings(index)
        chosen = choose_spelling(task, known)
        if rename:
            for old in known:
                if old != chosen and not task_name(old) and task_name(chosen):
                    _rename_task(self._conn, old, chosen)
        return chosen

    def _spellings(self, index: int) -> list[str]:
        rows = self._conn.execute(
            "SELECT DISTINCT task FROM labels UNION SELECT DISTINCT task FROM comment_drafts"
        ).fetchall()
        return [str(row[0]) for row in rows if paper_index(str(row[0])) == index]

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
        try:
            with self._lock:
                return self._rows(annotator, item, order)
        except sqlite3.Error as error:
            raise UserError(f"cannot read the label store: {error}", file=self.path) from error

    def _rows(self, annotator: str, item: ItemKey, order: str) -> list[HistoryEntry]:
        """`_history` for a caller that holds the lock."""
        system, task, implementation = item
        tasks = self._matching(task)
        sql = (
            f"SELECT {_COLUMNS}, cleared FROM labels WHERE annotator = ? AND system = ? "
            f"AND task IN ({', '.join('?' * len(tasks))}) AND implementation = ? "
            f"ORDER BY id {order}"
        )
        rows = self._conn.execute(sql, (annotator, system, *tasks, implementation)).fetchall()
        return [HistoryEntry(_label_of(row), bool(row[8])) for row in rows]

    # -- comment drafts ------------------------------------------------------------

    def save_draft(self, annotator: str, item: ItemKey, comment: str) -> None:
        """Keep ``comment`` as the annotator's unsaved comment on ``item`` ("" removes it).

        Durable when this returns, like `add`.
        """
        with self._lock:
            system, task, implementation = self._item(item)
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


def choose_spelling(task: str, known: Iterable[str]) -> str:
    """How the store spells ``task`` given the spellings ``known`` of its paper index.

    A spelling with a name wins over a bare number; a bare number takes the one name
    the store knows for its index (two different names are two tasks: left apart).
    """
    task = canonical_task(task)
    if task_name(task):
        return task
    named = {canonical_task(k) for k in known if task_name(k)}
    if len(named) == 1:
        return named.pop()
    return task


def _rename_task(conn: sqlite3.Connection, old: str, new: str) -> None:
    """Rename a task's rows (labels and drafts); a draft already under ``new`` wins."""
    conn.execute("UPDATE labels SET task = ? WHERE task = ?", (new, old))
    conn.execute("UPDATE OR IGNORE comment_drafts SET task = ? WHERE task = ?", (new, old))
    conn.execute("DELETE FROM comment_drafts WHERE task = ?", (old,))


def merge_task_spellings(conn: sqlite3.Connection) -> int:
    """Give every task one spelling and drop the rows that then repeat; return how many.

    A row is dropped when the item's previous row (same annotator, system, task and
    implementation, in id order) has the same label, comment, hash and clearing: the
    same label imported twice under two spellings. Runs in one transaction.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        tasks = [str(row[0]) for row in conn.execute("SELECT DISTINCT task FROM labels")]
        tasks += [str(row[0]) for row in conn.execute("SELECT DISTINCT task FROM comment_drafts")]
        by_index: dict[int, list[str]] = {}
        for task in dict.fromkeys(tasks):
            index = paper_index(task)
            if index is not None:
                by_index.setdefault(index, []).append(task)
        for spellings in by_index.values():
            for old in spellings:
                new = choose_spelling(old, spellings)
                if new != old:
                    _rename_task(conn, old, new)
        rows = conn.execute(
            "SELECT id, annotator, system, task, implementation, label, comment, "
            "candidate_sha256, cleared FROM labels ORDER BY id"
        ).fetchall()
        previous: dict[tuple[object, ...], tuple[object, ...]] = {}
        repeats: list[int] = []
        for row in rows:
            item, content = tuple(row[1:5]), tuple(row[5:])
            if previous.get(item) == content:
                repeats.append(int(row[0]))
            previous[item] = content
        conn.executemany("DELETE FROM labels WHERE id = ?", [(i,) for i in repeats])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(repeats)


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
