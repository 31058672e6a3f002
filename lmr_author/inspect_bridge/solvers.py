"""The two systems of the paper as Inspect solvers: standard prompting and an agent.

``standard_prompting`` asks the model once with the sample's prompt (the appendix-D
prompt of `lmr-author generate`, one user message, as the paper's script sent it); the
answer is the prediction. ``lmr_agent`` is Inspect's ReAct agent with a shell and a
Python tool in the sample's ``lmr-author`` sandbox; what it leaves in the workspace's
goal file is the submission, collected as ``lmr-author collect`` does. Both make their
model calls inside `explain_missing_endpoints`: a server that lacks the endpoint Inspect
called fails the sample with what to use instead.
"""

from __future__ import annotations

from inspect_ai.agent import AgentPrompt, as_solver, react
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import bash, python

from lmr_author.inspect_bridge.endpoints import explain_missing_endpoints

AGENT_INSTRUCTIONS = """\
You are reproducing a research paper's code. A repository with one function masked is
in your workspace, with the paper (paper.pdf) and INSTRUCTION.md, which says which
function to write and in which file. Write the function into that file, in place; run
code to check it. Only that function is scored: edits elsewhere are listed, never
scored. You have no network. When the function is written, submit."""


@solver
def standard_prompting(cache: bool | None = None) -> Solver:
    """One request with the sample's prompt; the completion is the prediction.

    ``cache`` False never takes an answer from Inspect's generate cache (a replayed
    system's answers must be its own, not those cached for another with the same prompt).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        with explain_missing_endpoints():
            if cache is None:
                return await generate(state)
            return await generate(state, cache=cache)

    return solve


@solver
def lmr_agent(command_timeout: int = 180) -> Solver:
    """A ReAct agent with ``bash`` and ``python`` in the task's image (lmr-author sandbox)."""
    agent = as_solver(
        react(
            prompt=AgentPrompt(instructions=AGENT_INSTRUCTIONS),
            tools=[bash(timeout=command_timeout), python(timeout=command_timeout)],
        )
    )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        with explain_missing_endpoints():
            return await agent(state, generate)

    return solve
