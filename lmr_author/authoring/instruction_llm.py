"""An instruction draft written by an LLM from the paper passage the goal implements.

The passage is the one `authoring.suggest` matches best to the goal function; the
model gets it (with its section and page), the function's signature and docstring, and
is asked for an LMR-Bench style instruction that cites the section. The model is
reached through a ``complete`` callable (messages -> text) that the caller makes from
the judge's client and configuration (`lmr_author.judge`): the layers keep authoring
below the judge, and tests inject a client of a local OpenAI-compatible server. With no
endpoint configured (``complete`` None) the draft is today's template draft.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lmr_author.authoring.instruction import draft_instruction
from lmr_author.authoring.spec import GoalSpec
from lmr_author.authoring.suggest import GoalSuggestion, suggest_goals
from lmr_author.util.python_parse import parse_python

Complete = Callable[[list[dict[str, str]]], str]

SYSTEM_PROMPT = (
    "You write the instruction of a paper-reproduction benchmark task (LMR-Bench). An "
    "agent will read the paper and the repository with one function masked, and must "
    "write the function back from your instruction. Say what the function must compute "
    "(inputs, outputs, the formula or steps of the paper), not how the original code is "
    "written. Cite the paper's section by its name. Answer with the instruction only, "
    "3 to 8 sentences, no code."
)


@dataclass(frozen=True)
class LLMInstructionDraft:
    text: str
    section: str  # the paper section the passage comes from ("" when unknown)
    source: str  # "llm" or "template"


def draft_instruction_from_paper(
    repo_dir: Path,
    goal: GoalSpec,
    pages: dict[str, str],
    *,
    complete: Complete | None = None,
) -> LLMInstructionDraft:
    """Draft the goal's instruction: by the model when ``complete`` is given, else by template."""
    template = draft_instruction(
        repo_dir, goal.goal_file, goal.goal_function, goal.class_name, goal.line
    )
    if complete is None:
        return LLMInstructionDraft(template.text, "", "template")
    match = _passage_for(repo_dir, goal, pages)
    section = match.section if match else ""
    where = f"Section “{section}”" if section else "the paper"
    context = _function_source(repo_dir, goal)
    user = "\n\n".join(
        [
            f"Goal function: `{goal.goal_function}`"
            + (f" of class `{goal.class_name}`" if goal.class_name else "")
            + f" in {goal.goal_file}.",
            f"Signature: {template.signature}",
            f"Docstring summary: {template.summary or '(none)'}",
            f"The passage of {where} (page {match.page if match else '?'}) it implements:\n"
            + (match.passage if match else "(no passage matched)"),
            "The golden implementation (for you only; do not copy it):\n" + context,
            f"Write the instruction. Start with 'Implement the `{goal.goal_function}` "
            f"function in {goal.goal_file}' and cite {where}.",
        ]
    )
    text = complete(
        [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
    ).strip()
    if not text:
        return LLMInstructionDraft(template.text, section, "template")
    if section and section.lower() not in text.lower():
        text += f" (See Section “{section}” of paper.pdf.)"
    return LLMInstructionDraft(text, section, "llm")


def _passage_for(repo_dir: Path, goal: GoalSpec, pages: dict[str, str]) -> GoalSuggestion | None:
    for suggestion in suggest_goals(repo_dir, pages, limit=10_000):
        if (suggestion.goal_file, suggestion.goal_function, suggestion.class_name) == (
            goal.goal_file,
            goal.goal_function,
            goal.class_name,
        ):
            return suggestion
    return None


def _function_source(repo_dir: Path, goal: GoalSpec) -> str:
    source = (repo_dir / goal.goal_file).read_text(encoding="utf-8")
    for node in ast.walk(parse_python(source)):
        is_function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        if is_function and getattr(node, "name", "") == goal.goal_function:
            return ast.get_source_segment(source, node) or ""
    return ""
