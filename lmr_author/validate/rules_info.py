"""Rules that read only info.json: syntax, schema, published spellings, names, indexes.

These are the rules ``--schema-only`` runs; they need no other file of the task.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lmr_author.domain.categories import CATEGORIES, match_category, suggest_category
from lmr_author.domain.task import INFO_FILE, RETRIEVAL_ALIAS, RETRIEVAL_KEY, is_digits
from lmr_author.util.schema import schema_issues
from lmr_author.validate.context import TaskContext
from lmr_author.validate.findings import Finding
from lmr_author.validate.rules import rule

FIX_HINT = "Run 'lmr-author validate --fix' to repair it."


def implementation_dicts(ctx: TaskContext) -> Iterator[tuple[int, dict[str, Any]]]:
    """(position, entry) for each object in info.json's ``implementations`` list."""
    raw = ctx.raw or {}
    entries = raw.get("implementations")
    if not isinstance(entries, list):
        return
    for position, entry in enumerate(entries):
        if isinstance(entry, dict):
            yield position, entry


@rule(
    "json-syntax", "error", "info.json is not valid UTF-8 JSON (with line and column)", stage="info"
)
def check_json_syntax(ctx: TaskContext) -> Iterator[Finding]:
    # Read and parse failures are found by the loader (TaskContext) and reported first.
    for key in dict.fromkeys(ctx.duplicate_keys):
        yield ctx.finding(
            "json-syntax",
            f"key '{key}' appears twice in one object; only the last value counts",
            file=INFO_FILE,
            severity="warning",
            hint="Delete the duplicate key.",
        )


@rule("unreadable-file", "error", "a file of the task cannot be read at all", stage="info")
def check_unreadable(ctx: TaskContext) -> Iterator[Finding]:
    # Reported where the reading happens: the loader (info.json) and the file rules.
    return iter(())


@rule(
    "schema",
    "error",
    "info.json breaks schemas/info.schema.json (with the JSON path)",
    stage="info",
)
def check_schema(ctx: TaskContext) -> Iterator[Finding]:
    if not ctx.has_document:
        return
    # A number spelt as digits ("29", as published) is read as the number: a warning of
    # its own (number-string), never a reason not to run the task.
    spelt = {path for path, _ in number_strings(ctx.document)}
    issues = [issue for issue in schema_issues(ctx.document) if issue.path not in spelt]
    for issue in issues:
        yield ctx.finding(
            "schema",
            issue.message,
            file=INFO_FILE,
            where=issue.path,
            hint=_schema_hint(issue.message),
        )
    if ctx.model_error is not None and not issues:
        yield ctx.finding(
            "schema",
            ctx.model_error.message,
            file=INFO_FILE,
            where=ctx.model_error.where or "$",
            hint=ctx.model_error.hint or "Fix the value in info.json.",
        )


def number_strings(document: Any) -> list[tuple[str, str]]:
    """(JSON path, value) of each integer field spelt as a string of digits."""
    if not isinstance(document, dict):
        return []
    found = [
        (f"$.{key}", document[key])
        for key in ("instance_id", "year")
        if is_digits(document.get(key))
    ]
    entries = document.get("implementations")
    if isinstance(entries, list):
        for position, entry in enumerate(entries):
            if isinstance(entry, dict) and is_digits(entry.get("index")):
                found.append((f"$.implementations[{position}].index", entry["index"]))
    return found


@rule(
    "number-string",
    "warning",
    'a number is spelt as a string of digits (instance_id "29", as published)',
    stage="info",
)
def check_number_string(ctx: TaskContext) -> Iterator[Finding]:
    if not ctx.has_document:
        return
    for path, value in number_strings(ctx.document):
        yield ctx.finding(
            "number-string",
            f"{path.removeprefix('$.')} is the string {value!r}; it is read as a number",
            file=INFO_FILE,
            where=path,
            hint=FIX_HINT,
        )


def _schema_hint(message: str) -> str:
    if "required property" in message:
        return "Add the missing key (see schemas/info.schema.json)."
    return "Fix the value (see schemas/info.schema.json)."


@rule(
    "alias-key", "warning", "retrieval_content is used instead of retrieval_context", stage="info"
)
def check_alias_key(ctx: TaskContext) -> Iterator[Finding]:
    for position, entry in implementation_dicts(ctx):
        if RETRIEVAL_ALIAS not in entry:
            continue
        where = f"$.implementations[{position}].{RETRIEVAL_ALIAS}"
        if not alias_fixable(entry):
            yield ctx.finding(
                "alias-key",
                f"both '{RETRIEVAL_KEY}' and its alias '{RETRIEVAL_ALIAS}' are set and "
                f"differ; only '{RETRIEVAL_KEY}' is used",
                file=INFO_FILE,
                where=where,
                hint=f"Merge the lists into '{RETRIEVAL_KEY}' and delete the alias.",
            )
            continue
        yield ctx.finding(
            "alias-key",
            f"'{RETRIEVAL_ALIAS}' is the published alias of '{RETRIEVAL_KEY}'",
            file=INFO_FILE,
            where=where,
            hint=FIX_HINT,
        )


def alias_fixable(entry: dict[str, Any]) -> bool:
    """True when the alias key can be renamed (or dropped) without losing anything."""
    if RETRIEVAL_ALIAS not in entry:
        return False
    if RETRIEVAL_KEY not in entry:
        return True
    return entry[RETRIEVAL_KEY] == entry[RETRIEVAL_ALIAS] or not entry[RETRIEVAL_ALIAS]


@rule(
    "unknown-category",
    "warning",
    "category is missing or not one of the nine of the paper's Table 4",
    stage="info",
)
def check_category(ctx: TaskContext) -> Iterator[Finding]:
    for position, entry in implementation_dicts(ctx):
        text = entry.get("category")
        if text is not None and not isinstance(text, str):
            continue  # a wrong type is the schema rule's finding
        match = match_category(text)
        where = f"$.implementations[{position}].category"
        if match.accepted:
            continue
        if match.kind == "missing":
            instruction = entry.get("instruction")
            guess = suggest_category(instruction) if isinstance(instruction, str) else None
            yield ctx.finding(
                "unknown-category",
                "no category" + (f"; the instruction suggests '{guess}'" if guess else ""),
                file=INFO_FILE,
                where=where,
                hint="Set it to one of: " + "; ".join(CATEGORIES) + ".",
            )
        elif match.fixable:
            yield ctx.finding(
                "unknown-category",
                f"category '{text}' is spelled differently from '{match.category}'",
                file=INFO_FILE,
                where=where,
                hint=FIX_HINT,
            )
        else:
            yield ctx.finding(
                "unknown-category",
                f"category '{text}' is not one of the nine categories; nearest: '{match.category}'",
                file=INFO_FILE,
                where=where,
                hint=f"Set it to '{match.category}' if that fits; the nine categories are listed "
                "in schemas/info.schema.json.",
            )


@rule(
    "folder-name",
    "warning",
    "folder_name is missing or differs from the task folder's name",
    stage="info",
)
def check_folder_name(ctx: TaskContext) -> Iterator[Finding]:
    raw = ctx.raw or {}
    value = raw.get("folder_name")
    if ctx.has_document and "folder_name" not in raw:
        yield ctx.finding(
            "folder-name",
            f"info.json has no folder_name; the folder's name '{ctx.path.name}' is used",
            file=INFO_FILE,
            where="$",
            hint=FIX_HINT,
        )
    if isinstance(value, str) and value and value != ctx.path.name:
        yield ctx.finding(
            "folder-name",
            f"folder_name '{value}' differs from the folder's name '{ctx.path.name}'",
            file=INFO_FILE,
            where="$.folder_name",
            hint=FIX_HINT,
        )


@rule("duplicate-index", "error", "two implementations share one index", stage="info")
def check_duplicate_index(ctx: TaskContext) -> Iterator[Finding]:
    first_seen: dict[int, int] = {}
    for position, entry in implementation_dicts(ctx):
        index = entry.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            continue
        if index in first_seen:
            yield ctx.finding(
                "duplicate-index",
                f"index {index} is already used by implementations[{first_seen[index]}]",
                file=INFO_FILE,
                where=f"$.implementations[{position}].index",
                hint="Number the implementations 1, 2, 3, ... without repeats.",
            )
        else:
            first_seen[index] = position


#: Past this a paper_name took in the authors or the abstract (an extraction's guess).
MAX_PAPER_NAME = 300


@rule(
    "paper-name",
    "warning",
    "paper_name is not a title: empty, over 300 characters or several lines",
    stage="info",
)
def check_paper_name(ctx: TaskContext) -> Iterator[Finding]:
    value = (ctx.raw or {}).get("paper_name")
    if not isinstance(value, str):
        return  # the schema reports a missing or mistyped paper_name
    problem = ""
    if not value.strip():
        problem = "paper_name is empty"
    elif "\n" in value.strip():
        problem = "paper_name has several lines"
    elif len(value) > MAX_PAPER_NAME:
        problem = f"paper_name has {len(value)} characters: it holds more than the title"
    if problem:
        yield ctx.finding(
            "paper-name",
            problem,
            file=INFO_FILE,
            where="$.paper_name",
            hint="Set it to the paper's title alone (no authors, no abstract).",
        )
