"""The standard-prompting prompt of the paper's appendix D, its ablations and a token budget.

The prompt holds the masked goal file, the paper as PyMuPDF JSON (page number -> text),
the instruction and the retrieval-context snippets, and asks for the goal function only.
Three settings mirror the paper's §5.2 ablations (``docs/generation.md``):

* ``full``: everything, as in appendix D;
* ``paper-and-goal-file``: no retrieval snippets (the other repository files are gone);
* ``paper-only``: no goal file and no snippets (the repository is gone).

The default template is ``templates/generation_prompt.md`` (Jinja2, because the prompt
has optional blocks and a list of snippets; code and JSON are inserted as values and
never parsed as template). A prompt over the token budget is cut in a fixed order, and
every cut is returned as a `TruncationAction`, so that callers report it per item:

1. the pages after the start of the references (references, then appendix), last first;
   then the references page itself is cut at its "References" heading;
2. the last pages of the paper, keeping at least the first page;
3. the retrieval snippets, last first.

The goal file, the instruction and the method name are never cut: if the prompt still
does not fit, `PromptTooLongError` says by how much.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Literal

from lmr_author.domain.task import INFO_FILE, RETRIEVAL_KEY, Implementation, Task
from lmr_author.llm.prompt_template import PromptTemplate, load_prompt_template
from lmr_author.llm.tokens import CHARS_PER_TOKEN
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import read_text

#: Code, JSON escapes and the broken words of PDF text take more tokens than prose,
#: so the estimate is raised by a quarter: an upper estimate, not an exact count.
SAFETY_MARGIN = 1.25

TEMPLATE_NAME = "generation_prompt.md"
VARIABLES = frozenset(
    {"method_name", "full_source_code", "paper_json", "instruction", "snippets", "setting"}
)

#: A line that opens the references of a paper: "References", "7 References", ...
_REFERENCES_HEADING = re.compile(
    r"^[ \t]*(?:\d+(?:\.\d+)*\.?[ \t]+)?(?:references|bibliography)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


class Setting(StrEnum):
    """What the prompt shows besides the paper, the instruction and the method name."""

    FULL = "full"
    PAPER_ONLY = "paper-only"
    PAPER_AND_GOAL_FILE = "paper-and-goal-file"

    @property
    def shows_goal_file(self) -> bool:
        return self is not Setting.PAPER_ONLY

    @property
    def shows_snippets(self) -> bool:
        return self is Setting.FULL


class PromptTooLongError(UserError):
    """Even after every allowed cut the prompt exceeds the token budget."""


@dataclass(frozen=True)
class Snippet:
    """One retrieval-context file: its path in the repository and its text."""

    path: str
    content: str


@dataclass(frozen=True)
class PromptInputs:
    """Everything a prompt is made of, for one implementation."""

    item: str  # e.g. "01-DPO#1", for messages
    method_name: str
    instruction: str
    goal_source: str  # the masked goal file
    paper: Mapping[str, str]  # page number -> text, in page order
    snippets: tuple[Snippet, ...] = ()


@dataclass(frozen=True)
class TruncationAction:
    """One cut made to fit the budget."""

    kind: Literal["drop-page", "cut-page", "drop-snippet"]
    target: str  # "page 12" or the snippet's path
    tokens_saved: int

    def describe(self) -> str:
        """One line for the per-item report, e.g. ``page 12 dropped (-850 tokens)``."""
        what = {
            "drop-page": "dropped",
            "cut-page": "cut at the references heading",
            "drop-snippet": "dropped (retrieval snippet)",
        }[self.kind]
        return f"{self.target} {what} (-{self.tokens_saved} tokens)"


@dataclass(frozen=True)
class Prompt:
    """The prompt text of one implementation, its estimated size and the cuts made."""

    text: str
    setting: Setting
    estimated_tokens: int
    truncations: tuple[TruncationAction, ...] = ()

    @property
    def truncated(self) -> bool:
        return bool(self.truncations)

    @property
    def messages(self) -> list[dict[str, str]]:
        """The chat messages: one user message, as the paper's script sent it."""
        return [{"role": "user", "content": self.text}]


def estimate_tokens(text: str) -> int:
    """An upper estimate of the tokens of ``text`` for the budget: the shared estimate
    (`lmr_author.llm.tokens`, characters / 4) raised by a quarter."""
    return math.ceil(len(text) / CHARS_PER_TOKEN * SAFETY_MARGIN)


def default_template_path() -> Path:
    """``templates/generation_prompt.md`` of the lmr-author installation."""
    from lmr_author.util.resources import resource_path

    return resource_path("templates", TEMPLATE_NAME)


def load_template(path: Path | None = None) -> PromptTemplate:
    """Read and check a template; syntax errors and unknown variables name the line."""
    return load_prompt_template(
        path if path is not None else default_template_path(),
        what="generation prompt template",
        variables=VARIABLES,
        required="method_name",
        purpose="names the goal function",
    )


@functools.cache
def _default_template() -> PromptTemplate:
    """The shipped template, read and compiled once per process."""
    return load_template()


def load_inputs(task: Task, impl: Implementation) -> PromptInputs:
    """Read the masked goal file, paper.json and the retrieval snippets of ``impl``."""
    from lmr_author.authoring.paper_pdf import load_paper_json

    where = f"$.implementations[{task.implementations.index(impl)}]"
    snippets = []
    for position, name in enumerate(impl.retrieval_context):
        snippets.append(
            Snippet(
                path=name,
                content=_read_repo_file(
                    task, name, f"{where}.{RETRIEVAL_KEY}[{position}]", "retrieval snippet"
                ),
            )
        )
    return PromptInputs(
        item=f"{task.name}#{impl.index}",
        method_name=impl.goal_function,
        instruction=impl.instruction,
        goal_source=_read_repo_file(task, impl.goal_file, f"{where}.goal_file", "goal file"),
        paper=load_paper_json(task.paper_json_path),
        snippets=tuple(snippets),
    )


def _read_repo_file(task: Task, name: str, where: str, what: str) -> str:
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise UserError(
            f"the {what} {name!r} is not inside the repository folder",
            file=task.path / INFO_FILE,
            where=where,
            hint="Give a path relative to the repository folder.",
        )
    missing = UserError(
        f"the {what} {name!r} is not a file in the repository folder",
        file=task.path / INFO_FILE,
        where=where,
        hint=f"Fix the path in info.json or add the file under {task.repo_folder_name}/.",
    )
    return read_text(task.repo_dir / relative, what=what, missing=missing)


def references_start(paper: Mapping[str, str]) -> tuple[str, int] | None:
    """The page and offset of the first references heading, if the paper has one."""
    for page, text in paper.items():
        match = _REFERENCES_HEADING.search(text)
        if match:
            return page, match.start()
    return None


def build_prompt(
    inputs: PromptInputs,
    setting: Setting = Setting.FULL,
    *,
    max_tokens: int | None = None,
    template: PromptTemplate | None = None,
    count_tokens: Callable[[str], int] = estimate_tokens,
) -> Prompt:
    """The prompt of ``inputs`` in ``setting``, cut to ``max_tokens`` if one is given."""
    chosen = template if template is not None else _default_template()
    state = replace(
        inputs,
        paper=dict(inputs.paper),
        snippets=inputs.snippets if setting.shows_snippets else (),
    )

    def render(current: PromptInputs) -> tuple[str, int]:
        text = chosen.render(
            method_name=current.method_name,
            full_source_code=current.goal_source.rstrip() if setting.shows_goal_file else None,
            paper_json=json.dumps(dict(current.paper), indent=2, ensure_ascii=False),
            instruction=current.instruction.strip(),
            snippets=[{"path": s.path, "content": s.content} for s in current.snippets],
            setting=str(setting),
        )
        return text, count_tokens(text)

    text, tokens = render(state)
    actions: list[TruncationAction] = []
    if max_tokens is not None:
        for kind, target, smaller in _cuts(state):
            if tokens <= max_tokens:
                break
            new_text, new_tokens = render(smaller)
            actions.append(TruncationAction(kind, target, tokens - new_tokens))
            state, text, tokens = smaller, new_text, new_tokens
        if tokens > max_tokens:
            raise PromptTooLongError(
                f"{inputs.item}: the {setting} prompt needs about {tokens} tokens even "
                f"after {len(actions)} cuts, over the budget of {max_tokens}",
                hint="The goal file and instruction are never cut; raise the budget "
                "or use a model with a larger context window.",
            )
    return Prompt(text=text, setting=setting, estimated_tokens=tokens, truncations=tuple(actions))


def _cuts(
    inputs: PromptInputs,
) -> Sequence[tuple[Literal["drop-page", "cut-page", "drop-snippet"], str, PromptInputs]]:
    """Every allowed cut in order, each applied on top of the ones before it."""
    steps: list[tuple[Literal["drop-page", "cut-page", "drop-snippet"], str, PromptInputs]] = []
    pages = dict(inputs.paper)
    keys = list(pages)
    start = references_start(pages)
    current = inputs
    if start is not None:
        first_ref = keys.index(start[0])
        for key in reversed(keys[first_ref + 1 :]):
            pages.pop(key)
            current = replace(current, paper=dict(pages))
            steps.append(("drop-page", f"page {key}", current))
        head = pages[start[0]][: start[1]]
        if start[1] == 0 and first_ref > 0:
            pages.pop(start[0])
            current = replace(current, paper=dict(pages))
            steps.append(("drop-page", f"page {start[0]}", current))
        else:
            pages[start[0]] = head
            current = replace(current, paper=dict(pages))
            steps.append(("cut-page", f"page {start[0]}", current))
    for key in reversed(list(pages)[1:]):
        pages.pop(key)
        current = replace(current, paper=dict(pages))
        steps.append(("drop-page", f"page {key}", current))
    snippets = list(current.snippets)
    while snippets:
        dropped = snippets.pop()
        current = replace(current, snippets=tuple(snippets))
        steps.append(("drop-snippet", dropped.path, current))
    return steps
