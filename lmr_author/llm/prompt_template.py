"""The one loader of prompt templates (the judge's and the generator's): Jinja2.

A template is a file a user may write, so it is read as text (`read_text`), compiled in
Jinja2's immutable sandbox with undefined variables an error, and checked before any
request is made: syntax, variables its owner does not fill, and the variable it must
show. Values are inserted as values, never parsed as template, so code and JSON full of
braces and dollars pass through untouched; no escaping is applied (a prompt is not HTML).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.util.errors import UserError
from lmr_author.util.json_input import read_text


@dataclass(frozen=True)
class PromptTemplate:
    """A checked template, the file it came from and what it is (for messages)."""

    text: str
    path: Path
    what: str
    #: The variables its owner fills.
    variables: frozenset[str]
    compiled: Any = field(repr=False, compare=False)

    def render(self, **values: Any) -> str:
        """The template filled with ``values``; a failure inside it is a `UserError`."""
        from jinja2 import TemplateError

        try:
            return str(self.compiled.render(**values))
        except TemplateError as error:
            raise UserError(
                f"the {self.what} failed ({error})",
                file=self.path,
                hint="Fix the template; variables: " + ", ".join(sorted(self.variables)) + ".",
            ) from None


def load_prompt_template(
    path: Path,
    *,
    what: str,
    variables: frozenset[str],
    required: str,
    purpose: str,
) -> PromptTemplate:
    """Read and check the template at ``path``.

    ``what`` names it in errors ("judge prompt template"); ``variables`` are those its
    owner fills; ``required`` is the one it must use, as ``purpose`` says ("shows the
    candidate"): the prompt is pointless without it.
    A missing file, bad syntax, an unknown variable or a missing ``required`` is a
    `UserError` naming the file and, where there is one, the line.
    """
    from jinja2 import StrictUndefined, TemplateSyntaxError, meta
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    missing = UserError(
        f"the {what} does not exist",
        file=path,
        hint="Pass an existing file as the template.",
    )
    text = read_text(path, what=what, missing=missing)
    env = ImmutableSandboxedEnvironment(
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    try:
        used = meta.find_undeclared_variables(env.parse(text))
        compiled = env.from_string(text)
    except TemplateSyntaxError as error:
        raise UserError(
            f"the template is not valid Jinja2 ({error.message})",
            file=path,
            where=f"line {error.lineno}",
            hint="Fix the template syntax there.",
        ) from None
    known = ", ".join("{{ " + name + " }}" for name in sorted(variables))
    unknown = sorted(used - variables)
    if unknown:
        raise UserError(
            f"unknown variable {unknown[0]} in the {what}",
            file=path,
            where=_line_of(text, re.compile(r"\b" + re.escape(unknown[0]) + r"\b")),
            hint=f"Known variables: {known}.",
        )
    if required not in used:
        hint = f"Add {{{{ {required} }}}} where it belongs."
        if re.search(r"\$\{?" + re.escape(required) + r"\b", text):
            hint = (
                f"Templates are Jinja2 now: write {{{{ {required} }}}} for ${required}, "
                "and a literal dollar as $ (not $$)."
            )
        raise UserError(
            f"the template never {purpose} ({{{{ {required} }}}})", file=path, hint=hint
        )
    return PromptTemplate(text, path, what, variables, compiled)


def _line_of(text: str, pattern: re.Pattern[str]) -> str | None:
    """``line N`` of the first match of ``pattern`` inside a ``{{ }}`` or ``{% %}`` tag."""
    for number, line in enumerate(text.split("\n"), start=1):
        for tag in re.findall(r"\{\{.*?\}\}|\{%.*?%\}", line):
            if pattern.search(tag):
                return f"line {number}"
    return None
