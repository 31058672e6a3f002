"""A published-shape ``results/`` folder, small and with every quirk of the real one.

The published LMR-Bench results hold ``unit_test_evaluation/<agent>/<model>/results.txt``,
``llm_as_a_judge_evaluation/<agent>/<model>/*_analysis.txt`` and
``human_evaluation/<annotator>.json``. This builder writes the same shapes from a table of
items whose verdicts and labels it decides itself (`items`), so a test can compute the
expected report independently. Its quirks, as in the published set: one system has judge
outputs and labels but no results.txt; one results.txt names a task without logs ("is not
a directory", a failed file); one judge answer has no readable label; one annotator's file
is on the 0..2 scale; folders spell systems ``OpenHands/gpt4o`` while labels say
``openhands_agent`` / ``gpt4o``; judge file names say ``1-DPO`` while the benchmark says
``01-DPO``. The label files are written by the product's own writer.

`printed_table` writes a "printed" Table 2 that differs from the files in known cells
(`PRINTED_DIFFERENCES`), as the paper's does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from lmr_author.labels.model import Label
from lmr_author.labels.published import dumps_records, labels_to_records
from tests.support.eval_output import write_task

#: (paper index, name, implementations, category as written in info.json, Figure 2 category)
_TRAINING = "Training Objectives & Optimization"
TASKS = (
    (1, "DPO", 1, _TRAINING + " Techniques", _TRAINING),
    (2, "HITs", 1, "loss function", _TRAINING),
    (3, "DoLa", 1, "Decoding & Search Strategies", "Decoding & Search Strategies"),
    (4, "Metric", 2, "Evaluation Metrics & Benchmarking", "Evaluation Metrics"),
    (5, "NSA", 1, "Neural Network Architectures & Modules", "Neural Network Architectures"),
    (6, "Blank", 1, None, None),
)  # fmt: skip
#: (folder agent, model, label agent_type, has results.txt)
SYSTEMS = (
    ("BaseAgent", "gpt4o", "no_agent", False),
    ("BaseAgent", "gpt4.1", "no_agent", True),
    ("OpenHands", "gpt4o", "openhands_agent", True),
    ("OpenHands", "gpt4.1", "openhands_agent", True),
)
#: The results.txt of this system lists task 6 as "is not a directory" (a failed file).
NO_LOGS = ("OpenHands", "gpt4o", 6)
#: The judge answer for this item has no readable label (counted, unparsed).
UNREADABLE = ("OpenHands", "gpt4.1", 3, 0)
#: The annotator whose file is written on the 0..2 scale.
ZERO_BASED = "ann2"


@dataclass(frozen=True)
class Item:
    agent: str
    model: str
    agent_type: str
    paper_index: int
    name: str
    index0: int
    passed: bool
    judge: int | None  # None: unreadable answer
    human: int
    annotator: str

    @property
    def system(self) -> str:
        """The canonical system: the labels' agent_type and model."""
        return f"{self.agent_type}-{self.model}"


def items() -> list[Item]:
    """Every item of every system, with its verdict and labels."""
    found: list[Item] = []
    for s, (agent, model, agent_type, _) in enumerate(SYSTEMS):
        n = 0
        for index, name, count, _, _ in TASKS:
            for index0 in range(count):
                unreadable = (agent, model, index, index0) == UNREADABLE
                found.append(
                    Item(
                        agent=agent,
                        model=model,
                        agent_type=agent_type,
                        paper_index=index,
                        name=name,
                        index0=index0,
                        passed=(n + s) % 3 != 0 and (agent, model, index) != NO_LOGS,
                        judge=None if unreadable else 1 + (n + s) % 3,
                        human=1 + (n + 2 * s) % 3 if s != 1 else (3 if n < 4 else 1),
                        annotator=ZERO_BASED if n % 2 else "ann1",
                    )
                )
                n += 1
    return found


def _judge_text(item: Item) -> str:
    if item.judge is None:
        return "The two functions differ in how they reduce the batch; see above.\n"
    answer = json.dumps({"category": str(item.judge), "rationale": ["Compared."]}, indent=2)
    return answer if item.index0 % 2 == 0 else f"Comparing.\n\n```json\n{answer}\n```\n"


def _results_text(system_items: list[Item]) -> str:
    lines: list[str] = []
    for item in sorted(system_items, key=lambda x: f"{x.paper_index}-{x.name}"):
        task = f"{item.paper_index}-{item.name}"
        if (item.agent, item.model, item.paper_index) == NO_LOGS:
            folder = f"/home/someone/outputs/{item.agent}/{task}/repo/unit_test/logs"
            lines.append(f"{folder} is not a directory")
            continue
        log = f"{task}/unit_test_{item.index0 + 1}.log"
        lines.append(f"{log}: PASS" if item.passed else f"{log}: FAIL (found 1 failure lines)")
    passed = sum(x.passed for x in system_items)
    total = len(system_items)
    lines += [
        "",
        f"Total log files: {total}",
        f"Passed files:    {passed}",
        f"Failed files:    {total - passed}",
        f"Overall pass rate: {passed / total * 100:.2f}%",
    ]
    return "\n".join(lines) + "\n"


def write_benchmark(folder: Path) -> Path:
    """Task folders ``01-DPO`` ... with the categories of `TASKS`."""
    for index, name, count, category, _ in TASKS:
        task = write_task(folder, f"{index:02d}-{name}", implementations=count)
        info = json.loads((task / "info.json").read_text())
        for impl in info["implementations"]:
            if category is None:
                del impl["category"]
            else:
                impl["category"] = category
        (task / "info.json").write_text(json.dumps(info, indent=2))
    return folder


def write_published_results(root: Path) -> Path:
    """``root/results`` in the published shape; returns it."""
    results = root / "results"
    all_items = items()
    for agent, model, _, has_results in SYSTEMS:
        mine = [x for x in all_items if (x.agent, x.model) == (agent, model)]
        if has_results:
            path = results / "unit_test_evaluation" / agent / model / "results.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_results_text(mine))
        for item in mine:
            task = f"{item.paper_index}-{item.name}"
            name = f"{task}_{item.name.lower()}-repo_{item.index0}_analysis.txt"
            path = results / "llm_as_a_judge_evaluation" / agent / model / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_judge_text(item))
    human = results / "human_evaluation"
    human.mkdir(parents=True)
    for annotator in sorted({x.annotator for x in all_items}):
        labels = [
            Label(annotator, x.system, str(x.paper_index), x.index0 + 1, x.human)
            for x in all_items
            if x.annotator == annotator
        ]
        records = labels_to_records(labels, bare=True)
        if annotator == ZERO_BASED:
            for record in records:
                record["human_judge_result"] -= 1
        (human / f"{annotator}.json").write_text(dumps_records(records))
    # Stale notebook copies the report must not read (as in the published folder).
    (human / ".ipynb_checkpoints").mkdir()
    (human / ".ipynb_checkpoints" / "ann1-checkpoint.json").write_text("[]")
    return results


#: Cells the printed table gets wrong, by canonical system and column group.
PRINTED_DIFFERENCES = {
    ("no_agent-gpt4o", "unit test"),  # printed, but no results.txt for it
    ("openhands_agent-gpt4.1", "unit test"),  # printed one pass short
    ("openhands_agent-gpt4o", "judge"),  # printed CC and LC moved by one item
    ("no_agent-gpt4o", "human"),  # the two standard-prompting human rows swapped
    ("no_agent-gpt4.1", "human"),
}


def printed_table(path: Path, expected: dict[str, dict[str, float | None]]) -> Path:
    """A printed Table 2 from ``expected`` (system -> column -> percent) with the
    differences of `PRINTED_DIFFERENCES`; returns ``path``."""
    rows = []
    step = 100 / 7
    for system, cells in expected.items():
        row: dict[str, object] = {"name": f"Printed {system}", "system": system}
        for column, value in cells.items():
            row[column] = value
        rows.append(row)
    by_system = {str(row["system"]): row for row in rows}
    by_system["no_agent-gpt4o"]["unit test"] = 50.0
    unit = expected["openhands_agent-gpt4.1"]["unit test"]
    by_system["openhands_agent-gpt4.1"]["unit test"] = (unit or 0) - step
    judge = by_system["openhands_agent-gpt4o"]
    judge["judge CC"] = float(str(judge["judge CC"])) - step
    judge["judge LC"] = float(str(judge["judge LC"])) + step
    a, b = by_system["no_agent-gpt4o"], by_system["no_agent-gpt4.1"]
    for column in ("human CC", "human LC", "human LI"):
        a[column], b[column] = b[column], a[column]
    for row in rows:
        for key, value in row.items():
            if isinstance(value, float):
                row[key] = round(value, 1)
    path.write_text(json.dumps({"title": "printed", "decimals": 1, "rows": rows}, indent=2))
    return path
