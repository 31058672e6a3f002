"""What the code says about each function: its names, its words, its size and who uses it.

Two passes keep a million-line repository fast. The first reads every Python file with
regular expressions only: how often each identifier is used, and whether the file is a
test, part of a copied library or a figure script. The second parses with ``ast`` the
files that can hold the goal: all of them in a research-sized repository, else those
whose identifiers match the paper best, up to `PARSE_BUDGET_LINES`.
A function's words come from its source text: identifiers, comments and its docstring
count once; words of its other strings (prompts, messages, data) are kept apart, halved,
as they quote the paper rather than compute it (`passages` uses them). The second pass
also notes what each function calls, how many of its lines compute, and what the
scripts' top-level code calls.
Tests (a new task has none yet) are never evidence.
"""

from __future__ import annotations

import ast
import gc
import keyword
import math
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from lmr_author.authoring.suggest.conventions import (
    DEMO_DIRS,
    FIGURE_DIRS,
    FRAMEWORK_ENTRIES,
    TEST_DIRS,
    VENDORED_DIRS,
)
from lmr_author.authoring.suggest.words import name_sequence, token_words, words
from lmr_author.util.python_parse import parse_python

PARSE_BUDGET_LINES = 100_000
_MAX_FILE_BYTES = 2_000_000  # generated tables, not code anyone masks
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(
    r'"""[\s\S]*?"""|' r"'''[\s\S]*?'''|" r'"(?:\\.|[^"\\\n])*"|' r"'(?:\\.|[^'\\\n])*'"
)
_COMMENT = re.compile(r"#[^\n]*")
_STRING_PREFIX = re.compile(r"(?<![\w])[rRbBuUfF]{1,2}\Z")  # the letters before a literal
_FIELD = re.compile(r"\{([^{}]*)\}")  # an f-string's replacement field
_BUILD_COPY = re.compile(r"(^|/)build/lib[^/]*/")
_VENDORED_MIN_FILES = 40  # a library's copy; fewer files are the repository's own package
# ``__init__`` may be where a method sets the paper's parameters (its schedule, its
# constants); the ranking weighs it by what it computes (`rank`).
_KEPT_DUNDERS = frozenset({"__call__", "__init__"})
# What a line computes: the names it assigns (``self.delta, x = ...``, ``loss += ...``),
# the names it returns (``return delta``, ``return best, value``).
_ASSIGNED = re.compile(
    r"^[ \t]*((?:[A-Za-z_][\w.]*(?:\[[^\]\n]*\])*\s*,\s*)*[A-Za-z_][\w.]*)"
    r"(?:\[[^\]\n]*\])*\s*(?::[^=\n]+)?(?:[-+*/@%]|\*\*|//)?=(?!=)"
    r"|^[ \t]*return[ \t]+\(?((?:[A-Za-z_][\w.]*[ \t]*,[ \t]*)*[A-Za-z_][\w.]*)[ \t]*,?\)?[ \t]*$"
)
_CALL = re.compile(r"(?<!def )(?<!class )\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
# A line that computes: an arithmetic operator between operands (strings are gone by then,
# so "a" + b is no match), or a call of a math library or of a reduction.
_MATH = re.compile(
    r"[\w)\]]\s*(?:\*\*|[-+*/@%])=?\s*[\w(\[.]|"
    r"\b(?:torch|np|numpy|jnp|jax|F|math|scipy|tf)\.[\w.]+\(|"
    r"\.(?:sum|mean|log|exp|sqrt|pow|norm|matmul|mm|bmm|einsum|softmax|log_softmax|"
    r"logsumexp|sigmoid|tanh|std|var|cumsum|prod|clamp|abs|dot|argmax|argmin|topk|max|min)\("
)


@dataclass
class SourceFile:
    """One Python file as the first pass sees it."""

    rel: str
    text: str
    lines: int
    identifiers: Counter[str]
    is_vendored: bool = False
    is_figure: bool = False
    is_demo: bool = False


@dataclass
class FunctionFacts:
    """One function (or method) as the ranking sees it."""

    file: str
    name: str
    class_name: str  # owner path: "Outer.Inner" for nested classes, "" at top level
    line: int
    lines: int  # lines of code: no blank line, comment or docstring
    name_words: tuple[str, ...]
    class_words: tuple[str, ...]
    file_words: tuple[str, ...]
    base_words: tuple[str, ...]  # of the class's bases (Module, Optimizer, Trainer)
    sequence: tuple[str, ...]  # the class's and the function's name words, in order
    bag: Counter[str] = field(default_factory=Counter)  # docstring, comments, code
    said: Counter[str] = field(default_factory=Counter)  # its other strings' words, halved
    is_vendored: bool = False
    is_figure: bool = False
    is_demo: bool = False
    calls: frozenset[str] = frozenset()  # names it calls (``f(...)``, ``x.f(...)``)
    math: float = 0.0  # share of its code lines that compute (operators, math libraries)
    computes: frozenset[str] = frozenset()  # words of what it assigns and returns by name
    returns: frozenset[str] = frozenset()  # words of what it returns by name, and of its name


@dataclass
class Repository:
    files: list[SourceFile]
    functions: list[FunctionFacts]
    uses: Counter[str]  # identifier -> occurrences in the whole repository
    files_using: Counter[str]  # identifier -> files that hold it
    script_calls: Counter[str] = field(default_factory=Counter)  # called by top-level code


def scan_repository(root: Path, terms: Mapping[str, float]) -> Repository:
    """Both passes: the functions of the files that can hold the goal."""
    sources = python_sources(root)
    uses: Counter[str] = Counter()
    files_using: Counter[str] = Counter()
    for source in sources:
        uses.update(source.identifiers)
        files_using.update(source.identifiers.keys())
    repo = Repository(sources, [], uses, files_using)
    with _gc_paused():
        for source in _files_to_parse(sources, terms, files_using):
            _add_functions(repo, source)
    return repo


def python_texts(root: Path) -> Iterator[tuple[str, str]]:
    """Every Python file but the tests (relative path, text)."""
    from lmr_author.cst.repository import python_files

    for rel in python_files(root):
        if _is_test(rel) or _BUILD_COPY.search(rel):
            continue  # tests are no evidence; build/lib is setuptools' copy of the package
        path = root / rel
        try:
            if path.is_symlink() or path.stat().st_size > _MAX_FILE_BYTES:
                continue
            yield rel, path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue


def python_sources(root: Path) -> list[SourceFile]:
    """The first pass: every Python file but the tests, with its identifiers."""
    found = []
    for rel, text in python_texts(root):
        folders = {p.lower() for p in rel.split("/")[:-1]}
        found.append(
            SourceFile(
                rel=rel,
                text=text,
                lines=text.count("\n") + 1,
                identifiers=Counter(_IDENTIFIER.findall(text)),
                is_figure=bool(folders & FIGURE_DIRS),
                is_demo=bool(folders & DEMO_DIRS),
            )
        )
    _mark_vendored(found)
    return found


def _is_test(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    return (
        any(p.lower() in TEST_DIRS or p.startswith("unit_test") for p in parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def _mark_vendored(sources: list[SourceFile]) -> None:
    """Files under a folder named after a library that holds as many files as a copy of
    it would (a repository's own small ``peft/`` package is its own code)."""
    sizes: Counter[str] = Counter()
    for source in sources:
        parts = source.rel.split("/")[:-1]
        for depth, part in enumerate(parts):
            if part.lower() in VENDORED_DIRS:
                sizes["/".join(parts[: depth + 1])] += 1
    big = tuple(folder + "/" for folder, count in sizes.items() if count >= _VENDORED_MIN_FILES)
    for source in sources:
        source.is_vendored = bool(big) and source.rel.startswith(big)


def _files_to_parse(
    sources: list[SourceFile], terms: Mapping[str, float], files_using: Counter[str]
) -> list[SourceFile]:
    """All files, or in a big repository the ones whose identifiers match the paper best
    (an identifier counts once per file, weighted by its paper words' salience and by
    how few files use it)."""
    if sum(s.lines for s in sources) <= PARSE_BUDGET_LINES:
        return sources
    total = len(sources)
    weights = {}
    for identifier, count in files_using.items():
        salience = sum(terms.get(word, 0.0) for word in token_words(identifier))
        if salience:
            weights[identifier] = salience * math.log(1 + total / count)

    def match(source: SourceFile) -> float:
        found = source.identifiers.keys() & weights.keys()
        score = math.fsum(weights[identifier] for identifier in found)  # any order, one sum
        return score / math.sqrt(max(source.lines, 50)) * (0.2 if source.is_vendored else 1.0)

    chosen, budget = [], PARSE_BUDGET_LINES
    for source in sorted(sources, key=match, reverse=True):
        if source.lines <= budget:
            chosen.append(source)
            budget -= source.lines
    return chosen


def _add_functions(repo: Repository, source: SourceFile) -> None:
    """The functions of one file (no dunder method but ``__call__`` and ``__init__``, no
    ``@overload`` stub)."""
    try:
        tree = parse_python(source.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    lines = source.text.splitlines()
    file_words = tuple(words(source.rel.rsplit("/", 1)[-1].removesuffix(".py")))
    found = repo.functions

    def visit(
        nodes: list[ast.stmt], owner: str, bases: tuple[str, ...], setup: Counter[str]
    ) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                inner = f"{owner}.{node.name}" if owner else node.name
                base_words = tuple(w for b in node.bases for w in words(ast.unparse(b)))
                visit(node.body, inner, base_words, _class_setup(node, lines))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.name.startswith("__") and node.name not in _KEPT_DUNDERS:
                    continue
                if is_overload_stub(node):
                    continue  # a typing stub: its implementation, defined after it, is the goal
                facts = _facts(node, owner, bases, source, lines, file_words)
                if set(bases) & FRAMEWORK_ENTRIES.get(node.name, frozenset()):
                    # a module's forward computes with what its __init__ made (each word once)
                    facts.bag.update(setup.keys())
                found.append(facts)
            elif isinstance(node, ast.If | ast.Try | ast.With):
                visit(_blocks(node), owner, bases, setup)  # definitions under a guard
            elif not owner:
                span = "\n".join(lines[node.lineno - 1 : node.end_lineno or node.lineno])
                code, _ = _without_strings(span)
                repo.script_calls.update(_called_names(_COMMENT.sub("", code)))

    visit(tree.body, "", (), Counter())


def is_overload_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``node`` is an ``@overload`` (``@typing.overload``) stub: a signature with
    no code, declared for type checkers."""
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id == "overload":
            return True
        if isinstance(decorator, ast.Attribute) and decorator.attr == "overload":
            return True
    return False


def _class_setup(node: ast.ClassDef, lines: list[str]) -> Counter[str]:
    """The words of a class's docstring and its ``__init__``: what its parts are named."""
    setup: Counter[str] = Counter(words(ast.get_docstring(node) or ""))
    for child in node.body:
        if isinstance(child, ast.FunctionDef) and child.name == "__init__":
            span = lines[child.lineno - 1 : child.end_lineno or child.lineno]
            found = _source_words("\n".join(span))
            setup.update(found.bag + found.said)
    return setup


def _called_names(code: str) -> set[str]:
    """The names ``code`` calls: ``f`` of ``f(...)`` and of ``x.f(...)`` (a regular
    expression over code without strings and comments: ast.walk costs several times more)."""
    return {name for name in _CALL.findall(code) if not keyword.iskeyword(name)}


def _blocks(node: ast.If | ast.Try | ast.With) -> list[ast.stmt]:
    body = list(node.body)
    if isinstance(node, ast.If):
        body += node.orelse
    elif isinstance(node, ast.Try):
        body += node.orelse + node.finalbody
        for handler in node.handlers:
            body += handler.body
    return body


def _facts(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    owner: str,
    bases: tuple[str, ...],
    source: SourceFile,
    lines: list[str],
    file_words: tuple[str, ...],
) -> FunctionFacts:
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    span = lines[first - 1 : node.end_lineno or node.lineno]
    found = _source_words("\n".join(span), ast.get_docstring(node) or "")
    klass = owner.rsplit(".", 1)[-1]
    return FunctionFacts(
        file=source.rel,
        name=node.name,
        class_name=owner,
        line=node.lineno,
        lines=max(found.lines, 1),
        name_words=token_words(node.name),
        class_words=tuple(words(klass)),
        file_words=file_words,
        base_words=bases,
        sequence=name_sequence(klass) + name_sequence(node.name),
        bag=found.bag,
        said=found.said,
        is_vendored=source.is_vendored,
        is_figure=source.is_figure,
        is_demo=source.is_demo,
        calls=frozenset(found.calls - {node.name}),
        math=found.math_lines / max(found.lines, 1),
        computes=frozenset(found.computed),
        returns=frozenset(found.returned) | frozenset(token_words(node.name)),
    )


def _without_strings(text: str) -> tuple[str, list[str]]:
    """``text`` with its string literals blanked (their lines kept), and the literals; an
    f-string keeps the code of its replacement fields (``print(f"{get_delta(m)}")`` calls
    ``get_delta``)."""
    pieces, literals = [], []
    position = 0
    for match in _STRING.finditer(text):
        pieces.append(text[position : match.start()])
        literal = match.group()
        position = match.end()
        prefix = _STRING_PREFIX.search(text, max(match.start() - 2, 0), match.start())
        if prefix and "f" in prefix.group().lower():
            fields = _FIELD.findall(literal.replace("{{", "").replace("}}", ""))
            literal = _FIELD.sub(" ", literal)
            pieces.append(" " + " ".join(fields))
        literals.append(literal)
        pieces.append("\n" * match.group().count("\n"))
    pieces.append(text[position:])
    return "".join(pieces), literals


class _SourceWords(NamedTuple):
    bag: Counter[str]  # identifiers, comments and the docstring
    lines: int  # of code
    math_lines: int  # lines that compute (`_MATH`)
    calls: set[str]
    computed: set[str]  # words of what it assigns and returns
    returned: set[str]  # words of what it returns
    said: Counter[str]  # words of its other strings, halved


def _source_words(text: str, docstring: str = "") -> _SourceWords:
    """Words of a function's source, its lines of code, how many of them compute, the
    names it calls, the words of what it assigns and returns, and of its strings."""
    bag: Counter[str] = Counter()
    said: Counter[str] = Counter()
    strings: Counter[str] = Counter()
    code, literals = _without_strings(text)
    commented = code
    for literal in literals:
        strings.update(words(literal[:2000]))
    if docstring:  # what the function says it does counts as its comments do
        described = Counter(words(docstring[:2000]))
        bag.update(described)
        strings -= described
    for comment in _COMMENT.findall(code):
        bag.update(words(comment))
    code = _COMMENT.sub("", code)
    for token, count in Counter(_IDENTIFIER.findall(code)).items():
        if not keyword.iskeyword(token):
            for word in token_words(token):
                bag[word] += count
    for word, count in strings.items():
        said[word] += (count + 1) // 2
    computed, returned = _computed(commented)
    lines = [line for line in code.splitlines() if line.strip()]
    math_lines = sum(1 for line in lines if _MATH.search(line))
    return _SourceWords(bag, len(lines), math_lines, _called_names(code), computed, returned, said)


def _computed(code: str) -> tuple[set[str], set[str]]:
    """Words of what ``code`` (strings blanked, comments kept) computes and returns by
    name, with the words of a comment on or just above such an assignment (``# PUCT``
    over ``uct = q + ...``); and of what it returns."""
    computed: set[str] = set()
    returned: set[str] = set()
    above: list[str] = []
    for raw in code.splitlines():
        comment = _COMMENT.search(raw)
        line = raw[: comment.start()] if comment else raw
        said = words(comment.group()) if comment else []
        if not line.strip():
            above = above + said if said else []
            continue
        match = _ASSIGNED.match(line)
        # an assignment computes when its line does (``x = f(y)`` only fetches); not a
        # keyword argument of a long call
        computes = match is not None and bool(match.group(2) or _MATH.search(line))
        if match and computes and not line.rstrip().endswith((",", "):")):
            for target in (match.group(1) or match.group(2)).split(","):
                found = token_words(target.split("[", 1)[0].strip().rsplit(".", 1)[-1])
                computed.update(found)
                if match.group(2):
                    returned.update(found)
            if match.group(1):
                computed.update(above + said)
        above = []
    return computed, returned


@contextmanager
def _gc_paused() -> Iterator[None]:
    """ast trees are many small objects: the cyclic collector only slows their making."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
