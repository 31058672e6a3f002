"""Build the judge's prompt: instruction, golden reference, candidate (paper appendix C).

The default template is ``templates/judge_prompt.md``; users may pass their own. A
template is Jinja2, read by the one prompt-template loader (`lmr_author.llm.prompt_template`)
with the variables ``{{ instruction }}``, ``{{ golden_file }}``, ``{{ golden_code }}``,
``{{ goal_file }}``, ``{{ goal_code }}``, ``{{ goal_function }}``, ``{{ class_name }}``,
``{{ task }}`` and ``{{ scope }}``; code is inserted as a value, never read as template.

In ``function`` scope both sides are cut down to the goal function with its class
context by the libcst engine; if that fails on either side (the candidate lost the
function, a syntax error) both sides are shown whole, which is what the paper did.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.domain.task import Implementation
from lmr_author.llm.prompt_template import PromptTemplate, load_prompt_template

PLACEHOLDERS = frozenset(
    {
        "instruction",
        "golden_file",
        "golden_code",
        "goal_file",
        "goal_code",
        "goal_function",
        "class_name",
        "task",
        "scope",
    }
)


def default_template_path() -> Path:
    """``templates/judge_prompt.md`` of the lmr-author checkout."""
    from lmr_author.util.resources import resource_path

    return resource_path("templates", "judge_prompt.md")


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
    """Read and check a template; unknown variables and bad syntax name the line."""
    return load_prompt_template(
        path if path is not None else default_template_path(),
        what="judge prompt template",
        variables=PLACEHOLDERS,
        required="goal_code",
        purpose="shows the candidate",
    )


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
    text = template.render(**values)
    return JudgePrompt(messages=[{"role": "user", "content": text}], scope=used_scope)


#: Sent after an answer that could not be read, together with that answer.
REASK = (
    "Your answer could not be read. Reply with only a JSON object of the form "
    '{"category": 1, "rationale": ["...", "..."]} where category is 1, 2 or 3.'
)
