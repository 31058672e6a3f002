"""Which of two copies of a function is the original, and why.

Repositories keep copies beside their code: a reference implementation
(``adamw_schedulefree_reference.py``), an older version (``loss_old``, ``backup/``), the
same module at the top level beside the package that holds it. When two suggestions are
copies of each other, the original ranks first: the one whose file, class, function
and folders are not named like a copy (`conventions.COPY_WORDS`); else the one the
repository's other modules import (its package's ``__init__``, its scripts) when nothing
imports the other, unless that other is a module at the repository's top level: a
standalone version of the package's code (``standalone_hyena.py``,
``bert_score_goal.py``) is what the published benchmark's authors chose as the goal, so
where it sits says nothing. Nothing else tells them apart, and then their order stays
as the scores say.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import PurePosixPath
from typing import TypeVar

from lmr_author.authoring.suggest.conventions import COPY_WORDS

T = TypeVar("T")

# Name tokens as written, acronyms kept: AdamWScheduleFreeReference -> Adam W Schedule Free
# Reference (the words of `words.name_sequence` drop one-letter tokens).
_TOKEN = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_FROM_IMPORT = re.compile(r"^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?([^#\n]*)", re.MULTILINE)
_IMPORT = re.compile(r"^\s*import\s+([^#\n]+)", re.MULTILINE)


@dataclass(frozen=True)
class Place:
    """Where a function is defined: its file, its owner class ("" for none), its name."""

    file: str
    class_name: str
    function: str

    def describe(self) -> str:
        owner = f"{self.class_name}." if self.class_name else ""
        return f"{self.file}:{owner}{self.function}"


@lru_cache(maxsize=8192)
def _tokens(name: str) -> tuple[str, ...]:
    return tuple(token.lower() for token in _TOKEN.findall(name))


def _without_copy_words(name: str) -> str:
    return "_".join(t for t in _tokens(name) if t not in COPY_WORDS)


def copy_words(place: Place) -> str:
    """Where the place is named like a copy ("file name says 'reference'"), else ""."""
    path = PurePosixPath(place.file)
    named = (
        ("function", place.function),
        ("class", place.class_name.rsplit(".", 1)[-1]),
        ("file", path.stem),
        *(("folder", part) for part in path.parts[:-1]),
    )
    for what, name in named:
        found = [t for t in _tokens(name) if t in COPY_WORDS]
        if found:
            return f"{what} name says '{found[0]}'"
    return ""


def copy_key(place: Place) -> tuple[str, str]:
    """The function's and its class's names without the words that name a copy: two
    places `named_alike` share it."""
    owner = place.class_name.rsplit(".", 1)[-1]
    return _without_copy_words(place.function), _without_copy_words(owner)


def named_alike(first: Place, second: Place) -> bool:
    """Two definitions whose names differ only by words that name a copy:
    ``AdamWScheduleFree.step`` and ``AdamWScheduleFreeReference.step``, ``loss`` in
    ``loss.py`` and in ``loss_old.py``."""
    if first == second:
        return False
    keys = []
    for place in (first, second):
        owner = place.class_name.rsplit(".", 1)[-1]
        stem = PurePosixPath(place.file).stem
        keys.append(
            (
                _without_copy_words(place.function),
                _without_copy_words(owner),
                _without_copy_words(stem),
                (place.function, owner, stem),
            )
        )
    (f1, c1, s1, raw1), (f2, c2, s2, raw2) = keys
    if (f1, c1) != (f2, c2) or not f1:
        return False
    # The function's or the class's name differs by a copy word, or (same names) the
    # file's stem does: the same module kept under a copy's name.
    return raw1[:2] != raw2[:2] or (s1 == s2 and raw1[2] != raw2[2])


class Originals:
    """The evidence of one repository: its Python files, read only when a name does not
    tell (most repositories never need them)."""

    def __init__(self, files: Callable[[], Mapping[str, str]]) -> None:
        self._read = files  # relative path -> text
        self._imports: dict[str, set[str]] = {}
        self._importers: dict[str, set[str]] = {}

    @cached_property
    def _files(self) -> Mapping[str, str]:
        return self._read()

    @cached_property
    def _by_suffix(self) -> dict[str, list[str]]:
        """Each dotted suffix of a module's name -> the files it can name."""
        by_suffix: dict[str, list[str]] = {}
        for rel in self._files:
            parts = rel.removesuffix(".py").split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            for start in range(len(parts)):
                by_suffix.setdefault(".".join(parts[start:]), []).append(rel)
        return by_suffix

    def importers(self, rel: str) -> set[str]:
        """The other files that import ``rel`` (``import a.b``, ``from a import b``,
        ``from .b import c``; resolved from the importer's folder, the repository's root,
        or as a unique dotted suffix: a ``src/`` layout). Only files that name the
        module at all are parsed."""
        if rel not in self._importers:
            path = PurePosixPath(rel)
            name = path.parent.name if path.stem == "__init__" else path.stem
            found = set()
            for other, text in self._files.items():
                if other != rel and name in text and rel in self._imported(other, text):
                    found.add(other)
            self._importers[rel] = found
        return self._importers[rel]

    def _imported(self, rel: str, text: str) -> set[str]:
        if rel in self._imports:
            return self._imports[rel]
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        modules: list[tuple[str, str]] = []  # (folder to resolve from, dotted name)
        for dots, module, names in _FROM_IMPORT.findall(text):
            base = folder
            for _ in range(max(len(dots) - 1, 0)):
                base = base.rsplit("/", 1)[0] if "/" in base else ""
            anchor = base if dots else ""
            modules.append((anchor, module))
            for name in names.replace(")", "").split(","):
                name = name.strip().split(" ")[0]
                if name.isidentifier():
                    modules.append((anchor, f"{module}.{name}" if module else name))
        for names in _IMPORT.findall(text):
            for name in names.split(","):
                dotted = name.strip().split(" ")[0]
                if dotted:
                    modules.append(("", dotted))
        targets: set[str] = set()
        for anchor, dotted in modules:
            targets |= self._resolve(folder, anchor, dotted)
        self._imports[rel] = targets
        return targets

    def _resolve(self, folder: str, anchor: str, dotted: str) -> set[str]:
        if not dotted:
            return set()
        path = dotted.replace(".", "/")
        roots = [anchor] if anchor else [folder, ""]
        for root in roots:
            stem = f"{root}/{path}" if root else path
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                if candidate in self._files:
                    return {candidate}
        if anchor:
            return set()
        matches = self._by_suffix.get(dotted, [])
        return set(matches) if len(matches) == 1 else set()

    def original(self, first: Place, second: Place) -> tuple[Place, Place, str] | None:
        """(original, copy, why) of two copies of a function; None when nothing tells."""
        marks = (copy_words(first), copy_words(second))
        if bool(marks[0]) != bool(marks[1]):
            original, copy = (second, first) if marks[0] else (first, second)
            return original, copy, f"the copy's {marks[0] or marks[1]}"
        imported = (len(self.importers(first.file)), len(self.importers(second.file)))
        if min(imported) == 0 and max(imported) > 0:
            original, copy = (first, second) if imported[0] else (second, first)
            if "/" not in copy.file:
                return None  # a standalone module at the top: the version readers are shown
            count = max(imported)
            modules = "module imports" if count == 1 else "modules import"
            why = f"{count} of the repository's {modules} the original's file, none the copy's"
            return original, copy, why
        return None

    def first_original(self, places: Sequence[Place], *, imports: bool = True) -> int:
        """Which of copies that share a name to show: the first not named like a copy;
        then the least nested, importable; then (with ``imports``) one the repository's
        modules import."""
        if len(places) == 1:
            return 0

        def named(place: Place) -> tuple[bool, int, bool]:
            module = PurePosixPath(place.file).stem
            return bool(copy_words(place)), place.file.count("/"), not module.isidentifier()

        best = min(named(place) for place in places)
        tied = [index for index, place in enumerate(places) if named(place) == best]
        if len(tied) == 1 or not imports:
            return tied[0]
        return min(tied, key=lambda index: not self.importers(places[index].file))


def originals_first(
    items: Sequence[T],
    place: Callable[[T], Place],
    pairs: Iterable[tuple[int, int]],
    originals: Originals,
) -> tuple[list[T], dict[int, str]]:
    """``items`` (best first) with the original of each pair of copies (indices into
    ``items``) moved just above its copy when it ranked below; and per index into the
    returned list, the sentence that says why it stands where it does."""
    order = list(range(len(items)))
    notes: dict[int, str] = {}  # by original index
    for first, second in sorted({(min(pair), max(pair)) for pair in pairs if pair[0] != pair[1]}):
        verdict = originals.original(place(items[first]), place(items[second]))
        if verdict is None:
            continue
        original, copy, why = verdict
        o, c = (first, second) if original == place(items[first]) else (second, first)
        notes.setdefault(o, f"the original of {copy.describe()}, ranked above it: {why}")
        notes.setdefault(c, f"a copy of {original.describe()}, ranked below it: {why}")
        if order.index(o) > order.index(c):
            order.remove(o)
            order.insert(order.index(c), o)
    moved = [items[i] for i in order]
    return moved, {position: notes[i] for position, i in enumerate(order) if i in notes}
