"""A small, real-shaped copy of the published LMR-Bench labels and judge outputs.

The published set has 168 items (system x task x implementation), four human label files
(one on a 0..2 scale) and 168 judge outputs in ``<agent>/<model>/`` folders, 27 of which
(one model's) end in a bare digit. The paper reports 62.5 % agreement between the judge
and the humans and 9.5 % direct conflicts (1 against 3); reading only the 141 JSON-shaped
outputs gives 64.5 % / 8.5 %, which is what a parser that misses the trailing digit shows.

This builder writes a set with the same counts, in the same file shapes, so the expected
numbers are derivable by hand:

- 168 items: five systems, four of 35 items and one (``LegacyAgent/gpt4``) of 28 whose
  judge answered 27 times in prose ending in the digit and once in JSON;
- of the 141 JSON-shaped items, 91 agree, 12 are direct conflicts, 38 differ by one step
  (91/141 = 64.5 %, 12/141 = 8.5 %);
- of the 27 trailing-digit items, 14 agree, 4 are direct conflicts, 9 differ by one
  (105/168 = 62.5 %, 16/168 = 9.5 %: the paper's figures);
- the human labels are split over four files by item (42 each), annotators ann1..ann4;
  ``labels-ann4.json`` is written on the 0..2 scale (label - 1).

The judge outputs alternate between the bare-JSON and fenced-JSON shapes of
``reference/formats/judge-output-*.txt``; the trailing-digit ones follow
``judge-output-trailing-digit.txt``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SYSTEMS = (
    ("BaseAgent", "gpt4o", 35),
    ("BaseAgent", "o4mini", 35),
    ("OpenHands", "gpt4o", 35),
    ("MLAgentBench", "gpt4o", 35),
    ("LegacyAgent", "gpt4", 28),  # its judge answered in prose ending in a digit
)
TRAILING_SYSTEM = ("LegacyAgent", "gpt4")
TASKS = 28
#: (human, judge) pairs, cycled through within each kind of outcome.
AGREE = ((1, 1), (2, 2), (3, 3))
CONFLICT = ((1, 3), (3, 1))
ONE_STEP = ((1, 2), (2, 1), (2, 3), (3, 2))
#: How many of each outcome: (agree, conflict, one step) for JSON-shaped / trailing items.
JSON_OUTCOMES = (91, 12, 38)
TRAILING_OUTCOMES = (14, 4, 9)


@dataclass(frozen=True)
class Item:
    agent: str
    model: str
    paper_index: int
    index0: int  # function_index, from 0 as published
    human: int
    judge: int
    shape: str  # "bare" | "fenced" | "trailing"


def _outcomes(counts: tuple[int, int, int]) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    for kinds, count in zip((AGREE, CONFLICT, ONE_STEP), counts, strict=True):
        pairs += [kinds[n % len(kinds)] for n in range(count)]
    return pairs


def items() -> list[Item]:
    """The 168 items with their human and judge labels and the judge output's shape."""
    json_pairs = iter(_outcomes(JSON_OUTCOMES))
    trailing_pairs = iter(_outcomes(TRAILING_OUTCOMES))
    found: list[Item] = []
    for agent, model, count in SYSTEMS:
        for n in range(count):
            paper_index, index0 = n % TASKS + 1, n // TASKS
            trailing = (agent, model) == TRAILING_SYSTEM and n > 0
            human, judge = next(trailing_pairs if trailing else json_pairs)
            shape = "trailing" if trailing else ("bare", "fenced")[len(found) % 2]
            found.append(Item(agent, model, paper_index, index0, human, judge, shape))
    return found


def judge_text(item: Item) -> str:
    """A judge output in one of the three published shapes."""
    answer = json.dumps(
        {"category": str(item.judge), "rationale": ["The loss is computed as in the paper."]},
        indent=2,
    )
    if item.shape == "bare":
        return answer
    if item.shape == "fenced":
        return f"Comparing the two implementations.\n\n```json\n{answer}\n```"
    return (
        "Comparing the function in the two files.\n\n"
        "**Differences:**\n1. The agent sums where the reference averages.\n"
        "2. An empty batch raises ZeroDivisionError.\n\n"
        "**Conclusion:** see above.\n\n"
        f"{item.judge}\n"
    )


def write_published_set(root: Path) -> tuple[list[Path], Path]:
    """Write the four label files and the judge-output folder under ``root``."""
    all_items = items()
    files: list[Path] = []
    for number in range(4):
        annotator = f"ann{number + 1}"
        zero_based = number == 3
        records = [
            {
                "annotator": annotator,
                "agent_type": item.agent,
                "model_name": item.model,
                "paper_index": item.paper_index,
                "function_index": item.index0,
                "human_judge_result": item.human - 1 if zero_based else item.human,
                "comment": "",
            }
            for position, item in enumerate(all_items)
            if position % 4 == number
        ]
        path = root / f"labels-{annotator}.json"
        path.write_text(json.dumps(records, indent=4), encoding="utf-8")
        files.append(path)
    judge_dir = root / "judge"
    for item in all_items:
        name = f"{item.paper_index}-Task{item.paper_index}_repo-{item.paper_index}_src"
        path = judge_dir / item.agent / item.model / f"{name}_{item.index0}_analysis.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(judge_text(item), encoding="utf-8")
    return files, judge_dir
