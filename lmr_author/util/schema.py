"""JSON Schema loading (``schemas/``) and readable validation errors.

The schemas are plain JSON Schema 2020-12 files so that other tools can use them too;
this module finds them, checks them once, and turns jsonschema's errors into short
messages with a JSON path (``$.implementations[0].index``) that the validator reports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from lmr_author.util.errors import UserError
from lmr_author.util.resources import resource_path

_MAX_VALUE_CHARS = 80


@dataclass(frozen=True)
class SchemaIssue:
    """One way a document breaks a schema: where (a JSON path) and what."""

    path: str
    message: str


def schema_path(name: str) -> Path:
    """The file of schema ``name`` (``info`` -> ``info.schema.json``)."""
    return resource_path("schemas", f"{name}.schema.json")


@cache
def load_schema(name: str = "info") -> dict[str, Any]:
    """Load and check schema ``name``; the result is shared, do not modify it."""
    path = schema_path(name)
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UserError(f"cannot load the schema: {error}", file=path) from None
    Draft202012Validator.check_schema(schema)
    if not isinstance(schema, dict):
        raise UserError("a schema must be a JSON object", file=path)
    return schema


@cache
def validator(name: str = "info") -> Draft202012Validator:
    """A validator for schema ``name``, built once per process."""
    return Draft202012Validator(load_schema(name))


def schema_issues(document: Any, name: str = "info") -> list[SchemaIssue]:
    """Every way ``document`` breaks schema ``name``, sorted by JSON path."""
    errors = sorted(validator(name).iter_errors(document), key=_error_key)
    return [SchemaIssue(error.json_path, describe(error)) for error in errors]


def describe(error: ValidationError) -> str:
    """A one-line message for a jsonschema error, with long values shortened."""
    if error.validator == "required":
        return error.message
    if error.validator == "type":
        expected = error.validator_value
        wanted = " or ".join(expected) if isinstance(expected, list) else str(expected)
        return (
            f"must be of type {wanted}, got {_json_type(error.instance)} {_short(error.instance)}"
        )
    if error.validator == "minLength" and error.validator_value == 1:
        return "must not be empty"
    if error.validator == "minItems" and error.validator_value == 1:
        return "must not be an empty list"
    if error.validator == "pattern":
        return f"{_short(error.instance)} is not a valid name here"
    message = error.message
    if len(message) > 2 * _MAX_VALUE_CHARS:
        message = message[: 2 * _MAX_VALUE_CHARS] + "..."
    return message


def _error_key(error: ValidationError) -> tuple[str, str]:
    return error.json_path, str(error.validator)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 3] + "..."
