"""The one identity of a system and of a task, whatever spelling a source uses.

The published LMR-Bench results name the same system three ways: human labels say
``agent_type`` + ``model_name`` (``openhands_agent`` / ``gpt4o``), judge outputs and
results.txt files sit in folders ``OpenHands/gpt4o``, and our own runs carry a system
name. The canonical system is ``<agent_type>-<model>`` (``openhands_agent-gpt4o``); the
folder spellings ``OpenHands/gpt4o``, ``OpenHands-gpt4o`` and ``BaseAgent/gpt4.1`` are its
aliases. The same task is ``01-DPO`` (a benchmark folder, canonical), ``1-DPO`` (published
file names), ``1`` or ``01`` (a label's paper index) and ``DPO`` (the paper's name): all
share the paper index 1, which is what tasks match on. Published files count
implementations from 0, info.json from 1.

Users add their own names with a JSON or TOML file (``--aliases``)::

    [agents]          # judge folder or other spelling -> agent_type
    MyAgent = "my_agent"
    [models]          # model spelling -> canonical model name
    "gpt-4o" = "gpt4o"
    [systems]         # any system name -> canonical system key
    correct = "oracle-golden"
    [tasks]           # task name without a number -> paper index
    "DPO" = 1

Labels, the judge, eval, report and agreement all name and match through this module,
so a system or a task is spelt one way on every screen and in the label store.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.domain.item_key import ItemKey
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import parse_json, read_text

__all__ = [
    "DEFAULT_AGENTS",
    "Identity",
    "canonical_task",
    "display_task",
    "from_zero_based",
    "load_identity",
    "natural_key",
    "paper_index",
    "split_system",
    "task_name",
    "to_zero_based",
]

#: Published folder names (judge outputs, results.txt) -> the human labels' agent_type.
DEFAULT_AGENTS: Mapping[str, str] = {
    "BaseAgent": "no_agent",
    "OpenHands": "openhands_agent",
}

_NUMBERED = re.compile(r"^\s*0*(\d+)\s*(?:-\s*(.*?))?\s*$", re.DOTALL)
_DIGITS = re.compile(r"(\d+)")
_SECTIONS = ("agents", "models", "systems", "tasks")


# -- tasks -----------------------------------------------------------------------------


def paper_index(task: str) -> int | None:
    """The number before the dash of a task name (``01-DPO``, ``1-DPO``, ``1`` -> 1)."""
    match = _NUMBERED.match(task)
    return int(match.group(1)) if match else None


def task_name(task: str) -> str:
    """The part after the number (``01-DPO`` -> ``DPO``); a name without number as is."""
    match = _NUMBERED.match(task)
    if match is None:
        return task.strip()
    return match.group(2) or ""


def canonical_task(task: str) -> str:
    """The benchmark's spelling of a task name: ``1-DPO`` -> ``01-DPO``, ``7`` -> ``07``."""
    match = _NUMBERED.match(task)
    if match is None:
        return task
    number, name = int(match.group(1)), match.group(2)
    return f"{number:02d}-{name}" if name else f"{number:02d}"


#: What the screens show is the canonical spelling.
display_task = canonical_task


def natural_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key that orders the digit runs of ``text`` by value: ``2`` < ``11`` < ``13``."""
    parts = _DIGITS.split(text)
    return tuple(
        (1, int(part), part) if part.isdigit() else (0, 0, part.casefold())
        for part in parts
        if part
    )


def to_zero_based(implementation: int) -> int:
    """info.json ``index`` (from 1) -> published ``function_index`` (from 0)."""
    return implementation - 1


def from_zero_based(function_index: int) -> int:
    """Published ``function_index`` / ``_<k>_analysis.txt`` (from 0) -> info.json ``index``."""
    return function_index + 1


# -- systems ---------------------------------------------------------------------------


def split_system(system: str) -> tuple[str, str]:
    """``no_agent-gpt4o`` or ``OpenHands/gpt4o`` -> (agent, model); no model without a dash.

    A slash separates a published folder pair. Agent types use underscores, so otherwise
    the first dash separates agent from model, and model names may themselves contain
    dashes (``no_agent-gpt-4o`` -> ``gpt-4o``).
    """
    if "/" in system:
        agent, _, model = system.partition("/")
        return agent, model
    agent, _, model = system.partition("-")
    return agent, model


@dataclass(frozen=True)
class Identity:
    """Name mappings: which spellings are one system, which are one task."""

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
        """The canonical system of an agent and a model (``no_agent-gpt4o``)."""
        agent = self.agent(agent_type)
        model = self.model(model_name)
        key = f"{agent}-{model}" if model else agent
        return self.systems.get(key, key)

    def canonical_system(self, system: str) -> str:
        """Any spelling of a system (``OpenHands/gpt4o``, a user alias) -> canonical key."""
        if system in self.systems:
            return self.systems[system]
        agent, model = split_system(system)
        return self.system(agent, model)

    def paper_index(self, task: str) -> int | None:
        """The paper index of a task: its number, or the user's [tasks] mapping."""
        index = paper_index(task)
        if index is not None:
            return index
        return self.tasks.get(task.strip())

    def task_key(self, task: str) -> str:
        """What tasks match on: the paper index when there is one, else the name."""
        index = self.paper_index(task)
        return str(index) if index is not None else task

    def canonical_task(self, task: str, known: Mapping[int, str] | None = None) -> str:
        """The canonical spelling of a task: the benchmark folder ``known`` names for its
        paper index (``1`` -> ``01-DPO``), else its zero-padded spelling."""
        index = self.paper_index(task)
        if index is None:
            return task
        if known and index in known:
            return canonical_task(known[index])
        if paper_index(task) is None:  # a name the [tasks] table numbers
            return canonical_task(f"{index}-{task.strip()}")
        return canonical_task(task)

    def item_key(self, system: str, task: str, implementation: int) -> ItemKey:
        """The key two sources' items match on (canonical system, task key, index)."""
        return ItemKey(self.canonical_system(system), self.task_key(task), implementation)

    def merged(self, other: Identity) -> Identity:
        """These names with ``other``'s entries added (``other`` wins on conflicts)."""
        return Identity(
            agents={**self.agents, **other.agents},
            models={**self.models, **other.models},
            systems={**self.systems, **other.systems},
            tasks={**self.tasks, **other.tasks},
        )


def load_identity(path: Path | None = None) -> Identity:
    """The default names, plus those of the user's JSON or TOML file when given."""
    defaults = Identity()
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
        Identity(
            agents=sections["agents"],
            models=sections["models"],
            systems=sections["systems"],
            tasks=sections["tasks"],
        )
    )
