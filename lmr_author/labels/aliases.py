"""How the names of one source map onto another, so items match without hand edits.

The published LMR-Bench results name the same thing three ways: human labels say
``agent_type`` + ``model_name`` (``no_agent`` / ``gpt4o``), judge outputs sit in folders
``BaseAgent/gpt4o``, and our own runs use a system name. The canonical system key is
``<agent_type>-<model_name>`` (``no_agent-gpt4o``). Tasks match on the paper index, the
number before the dash of the task folder name (``1-DPO`` and ``01-DPO`` are both 1).
Published files count implementations from 0 (``function_index``, ``_<k>_analysis.txt``),
info.json from 1. Users add their own names with a JSON or TOML file (``--aliases``)::

    [agents]          # judge folder or other spelling -> agent_type
    MyAgent = "my_agent"
    [models]          # model spelling -> canonical model name
    "gpt-4o" = "gpt4o"
    [systems]         # any system name -> canonical system key
    correct = "oracle-golden"
    [tasks]           # task folder name without a number -> paper index
    "DPO" = 1
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.errors import UserError
from lmr_author.json_input import parse_json, read_text

#: Judge-output folder names of the published results -> the human labels' agent_type.
DEFAULT_AGENTS: Mapping[str, str] = {
    "BaseAgent": "no_agent",
    "OpenHands": "openhands_agent",
}

_PAPER_INDEX = re.compile(r"^\s*(\d+)\s*(?:-|$)")
_SECTIONS = ("agents", "models", "systems", "tasks")


def paper_index(task: str) -> int | None:
    """The number before the dash of a task folder name (``01-DPO`` -> 1), or None."""
    match = _PAPER_INDEX.match(task)
    return int(match.group(1)) if match else None


def to_zero_based(implementation: int) -> int:
    """info.json ``index`` (from 1) -> published ``function_index`` (from 0)."""
    return implementation - 1


def from_zero_based(function_index: int) -> int:
    """Published ``function_index`` / ``_<k>_analysis.txt`` (from 0) -> info.json ``index``."""
    return function_index + 1


@dataclass(frozen=True)
class Aliases:
    """Name mappings between label files, judge outputs and our runs."""

    agents: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_AGENTS))
    models: Mapping[str, str] = field(default_factory=dict)
    systems: Mapping[str, str] = field(default_factory=dict)
    tasks: Mapping[str, int] = field(default_factory=dict)

    def agent(self, name: str) -> str:
        """The canonical agent_type of an agent name or judge folder."""
        return self.agents.get(name, name)

    def model(self, name: str) -> str:
        return self.models.get(name, name)

    def system(self, agent_type: str, model_name: str) -> str:
        """The canonical system key of an agent and a model (``no_agent-gpt4o``)."""
        agent = self.agent(agent_type)
        model = self.model(model_name)
        key = f"{agent}-{model}" if model else agent
        return self.systems.get(key, key)

    def canonical_system(self, system: str) -> str:
        """Any spelling of a system (``BaseAgent-gpt4o``, a user alias) -> canonical key."""
        if system in self.systems:
            return self.systems[system]
        agent, model = split_system(system)
        return self.system(agent, model)

    def task_key(self, task: str) -> str:
        """What tasks match on: the paper index when there is one, else the name."""
        index = self.paper_index(task)
        return str(index) if index is not None else task

    def paper_index(self, task: str) -> int | None:
        """The paper index of a task: its folder number, or the user's mapping."""
        index = paper_index(task)
        if index is not None:
            return index
        return self.tasks.get(task)

    def merged(self, other: Aliases) -> Aliases:
        """These aliases with ``other``'s entries added (``other`` wins on conflicts)."""
        return Aliases(
            agents={**self.agents, **other.agents},
            models={**self.models, **other.models},
            systems={**self.systems, **other.systems},
            tasks={**self.tasks, **other.tasks},
        )


def split_system(system: str) -> tuple[str, str]:
    """``no_agent-gpt4o`` -> (``no_agent``, ``gpt4o``); a name without a dash has no model.

    Agent types use underscores, so the first dash separates agent from model, and model
    names may themselves contain dashes (``no_agent-gpt-4o`` -> ``gpt-4o``).
    """
    agent, _, model = system.partition("-")
    return agent, model


def load_aliases(path: Path | None = None) -> Aliases:
    """The default aliases, plus those of the user's JSON or TOML file when given."""
    defaults = Aliases()
    if path is None:
        return defaults
    hint = "An aliases file has the tables agents, models, systems and tasks."
    text = read_text(path, what="aliases file", hint=hint)
    data: Any
    if path.suffix.lower() != ".toml":
        data = parse_json(text, file=path, what="aliases file", hint=hint)
    else:
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as error:
            raise UserError(
                f"is not valid TOML: {error or 'nested too deeply'}", file=path, hint=hint
            ) from None
    if not isinstance(data, dict):
        raise UserError("must hold an object with agents/models/systems/tasks", file=path)
    unknown = sorted(set(data) - set(_SECTIONS))
    if unknown:
        raise UserError(
            f"unknown section(s) {', '.join(unknown)}",
            file=path,
            hint="Use only: " + ", ".join(_SECTIONS) + ".",
        )
    sections: dict[str, dict[str, Any]] = {}
    for section in _SECTIONS:
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise UserError("must map names to names", file=path, where=section)
        for key, value in table.items():
            want_int = section == "tasks"
            ok = (
                isinstance(value, int) and not isinstance(value, bool)
                if want_int
                else isinstance(value, str) and bool(value)
            )
            if not ok:
                raise UserError(
                    f"must be {'a paper index (integer)' if want_int else 'a non-empty name'}, "
                    f"got {value!r}",
                    file=path,
                    where=f"{section}.{key}",
                )
        sections[section] = dict(table)
    return defaults.merged(
        Aliases(
            agents=sections["agents"],
            models=sections["models"],
            systems=sections["systems"],
            tasks=sections["tasks"],
        )
    )
