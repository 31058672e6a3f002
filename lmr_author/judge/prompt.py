"""Build the judge's prompt: instruction, golden reference, candidate (paper appendix C).

The default template is ``templates/judge_prompt.md``; users may pass their own. A
template is plain text with ``string.Template`` placeholders (``$instruction``,
``$golden_file``, ``$golden_code``, ``$goal_file``, ``$goal_code``, ``$goal_function``,
``$class_name``, ``$task``, ``$scope``), chosen because code and JSON examples are full
of braces that ``str.format`` would trip over; a literal dollar is ``$$``.

In ``function`` scope both sides are cut down to the goal function with its class
context by the libcst engine; if that fails on either side (the candidate lost the
function, a syntax error) both sides are shown whole, which is what the paper did.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.errors import UserError
from lmr_author.json_input import read_text
from lmr_author.task import Implementation

PLACEHOLDERS = (
    "instruction",
    "golden_file",
    "golden_code",
    "goal_file",
    "goal_code",
    "goal_function",
    "class_name",
    "task",
    "scope",
)


def default_template_path() -> Path:
    """``templates/judge_prompt.md`` of the lmr-author checkout."""
    from lmr_author.resources import resource_path

    return resource_path("templates", "judge_prompt.md")


@dataclass(frozen=True)
class PromptTemplate:
    """A judge prompt template and the file it came from."""

    text: str
    path: Path

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class JudgePrompt:
    """The messages sent to the judge, the scope actually used and their fingerprint."""

    messages: list[dict[str, str]]
    scope: str

    @property
    def sha256(self) -> str:
        canonical = json.dumps(self.messages, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def load_template(path: Path | None = None) -> PromptTemplate:
    """Read and check a template; unknown placeholders are a `UserError` naming the line."""
    source = path if path is not None else default_template_path()
    missing = UserError(
        "the judge prompt template does not exist",
        file=source,
        hint="Pass an existing file to --template.",
    )
    text = read_text(source, what="judge prompt template", missing=missing)
    template = string.Template(text)
    if not template.is_valid():
        raise UserError(
            "the template has a '$' that is not a placeholder",
            file=source,
            where=_line_of(text, _bad_dollar(template)),
            hint="Write a literal dollar sign as $$.",
        )
    unknown = [name for name in template.get_identifiers() if name not in PLACEHOLDERS]
    if unknown:
        raise UserError(
            f"unknown placeholder ${unknown[0]}.",
            file=source,
            where=_line_of(text, _placeholder_offset(text, unknown[0])),
            hint="Known placeholders: " + ", ".join("$" + name for name in PLACEHOLDERS) + ".",
        )
    if "goal_code" not in template.get_identifiers():
        raise UserError(
            "the template never shows the candidate ($goal_code)",
            file=source,
            hint="Add $goal_code where the agent implementation belongs.",
        )
    return PromptTemplate(text=text, path=source)


def _bad_dollar(template: string.Template) -> int:
    for match in template.pattern.finditer(template.template):
        if match.group("invalid") is not None:
            return match.start("invalid")
    return 0


def _placeholder_offset(text: str, name: str) -> int:
    match = re.search(r"\$(?:" + re.escape(name) + r"\b|\{" + re.escape(name) + r"\})", text)
    return match.start() if match else 0


def _line_of(text: str, offset: int) -> str:
    return f"line {text.count(chr(10), 0, max(offset, 0)) + 1}"


def extract_goal(source: str, impl: Implementation) -> str:
    """The goal function of ``source`` with its class context (libcst engine)."""
    from lmr_author.cst.extract import extract_function

    result: Any = extract_function(
        source, impl.goal_function, impl.class_name, with_class_context=True
    )
    text = result if isinstance(result, str) else getattr(result, "code", None)
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the extraction returned no code")
    return text


def build_prompt(
    template: PromptTemplate,
    impl: Implementation,
    *,
    task_name: str,
    golden_source: str,
    candidate_source: str,
    scope: str,
) -> JudgePrompt:
    """Fill the template for one implementation; ``scope`` is ``function`` or ``file``."""
    used_scope = scope
    golden_code, goal_code = golden_source, candidate_source
    if scope == "function":
        try:
            golden_code = extract_goal(golden_source, impl)
            goal_code = extract_goal(candidate_source, impl)
        except Exception:  # any failure: show whole files, as the paper did
            used_scope = "file"
            golden_code, goal_code = golden_source, candidate_source
    values = {
        "instruction": impl.instruction.strip(),
        "golden_file": impl.golden_file,
        "golden_code": golden_code.rstrip("\n"),
        "goal_file": impl.goal_file,
        "goal_code": goal_code.rstrip("\n"),
        "goal_function": impl.qualified_name,
        "class_name": impl.class_name,
        "task": task_name,
        "scope": used_scope,
    }
    text = string.Template(template.text).substitute(values)
    return JudgePrompt(messages=[{"role": "user", "content": text}], scope=used_scope)


#: Sent after an answer that could not be read, together with that answer.
REASK = (
    "Your answer could not be read. Reply with only a JSON object of the form "
    '{"category": 1, "rationale": ["...", "..."]} where category is 1, 2 or 3.'
)
