"""Equivalent mutants (stable keys, stored in info.json with why) and the benchmark-wide
test-strength table (`validate --mutants`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.domain.task import load_task
from lmr_author.mutation.equivalents import (
    EquivalentMutant,
    equivalents_of,
    mark_equivalent,
    parse_equivalents,
    set_equivalents,
)
from lmr_author.mutation.mutants import Mutant, mutants_of
from lmr_author.mutation.score import MutationReport
from lmr_author.mutation.summary import mutation_table, summary_json
from lmr_author.util.errors import UserError

SOURCE = b"""import numpy as np


def spread(matrix):
    rows = matrix.shape[0]
    return sum(matrix[i, i] for i in range(rows)) / rows
"""


def test_keys_are_stable_across_unrelated_changes_and_distinct() -> None:
    first = mutants_of(SOURCE, "spread")
    moved = mutants_of(b"# a comment\n\nX = 1\n" + SOURCE, "spread")
    assert [m.key for m in first] == [m.key for m in moved]
    assert len({m.key for m in first}) == len(first)
    assert all(len(m.key) == 12 for m in first)


def _task(tmp_path: Path) -> Path:
    task = tmp_path / "07-Toy"
    (task / "repo").mkdir(parents=True)
    info = {
        "instance_id": 7,
        "repo_folder_name": "repo",
        "implementations": [
            {
                "instruction": "x",
                "index": 1,
                "goal_file": "m.py",
                "goal_function": "spread",
                "golden_file": "golden_files/m_golden.py",
                "unit_test_file": "unit_test/unit_test_1.py",
                "retrieval_content": [],
            }
        ],
    }
    (task / "info.json").write_text(json.dumps(info))
    return task


def test_marks_are_stored_in_info_json_and_read_back(tmp_path: Path) -> None:
    task = _task(tmp_path)
    key = mutants_of(SOURCE, "spread")[0].key
    mark_equivalent(task, 1, [EquivalentMutant(key, "square matrices", "constant: 0 → 1")])
    data = json.loads((task / "info.json").read_text())
    entry = data["implementations"][0]
    assert entry["retrieval_content"] == []  # the published spelling stays as it was
    assert entry["equivalent_mutants"] == [
        {"mutant": key, "reason": "square matrices", "change": "constant: 0 → 1"}
    ]
    [impl] = load_task(task).implementations
    assert equivalents_of(impl)[key].reason == "square matrices"
    mark_equivalent(task, 1, [EquivalentMutant(key, "n×n inputs only")])  # replaced by key
    assert equivalents_of(load_task(task).implementations[0])[key].reason == "n×n inputs only"
    set_equivalents(task, 1, [])
    assert (
        "equivalent_mutants"
        not in json.loads((task / "info.json").read_text())["implementations"][0]
    )
    from lmr_author.validate.task_dir import validate_task_dir

    mark_equivalent(task, 1, [EquivalentMutant(key, "why")])
    assert not [f for f in validate_task_dir(task) if f.rule == "schema"]


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ("x", "$.e"),
        ([{"mutant": "nothex", "reason": "r"}], "$.e[0].mutant"),
        ([{"mutant": "0123456789ab", "reason": " "}], "$.e[0].reason"),
        ([3], "$.e[0]"),
    ],
)
def test_malformed_marks_name_their_place(raw: object, where: str) -> None:
    with pytest.raises(UserError) as caught:
        parse_equivalents(raw, file=Path("spec.json"), where="$.e")
    assert caught.value.where == where and caught.value.file == "spec.json"


def _mutant(index: int, operator: str = "constant") -> Mutant:
    diff = f"--- golden\n+++ mutant\n-    x = {index}\n+    x = {index + 1}\n"
    return Mutant(index, operator, f"{index} → {index + 1}", b"", diff)


def test_the_table_and_json_of_a_benchmark() -> None:
    strong = MutationReport("26-Hyena", 1, total=23, killed=23)
    weak = MutationReport(
        "25-AdaLora", 1, total=17, killed=5, survivors=[_mutant(i) for i in range(12)]
    )
    marked = _mutant(99)
    equivalent = MutationReport(
        "29-Sophia",
        1,
        total=9,
        killed=8,
        equivalent=[(marked, EquivalentMutant(marked.key, "square matrices"))],
    )
    reports = [strong, weak, equivalent]
    assert (equivalent.scored, equivalent.score) == (8, 1.0)  # 8/9 is 8/8 once marked
    table = mutation_table(reports)
    assert [row[0] for row in table.rows] == ["25-AdaLora #1", "26-Hyena #1", "29-Sophia #1", "all"]
    assert table.rows[0][1:6] == ["29%", "5/17", "12", "0", "0"]
    assert table.rows[2][1:5] == ["100%", "8/8", "0", "1"]
    assert table.rows[-1][1:5] == ["75%", "36/48", "12", "1"]
    assert "(+9)" in table.rows[0][6]
    assert "1 of 3 implementation(s) let a wrong answer pass" in table.note
    document = summary_json(reports)
    assert document["total"] == {
        "implementations": 3,
        "killed": 36,
        "counted": 48,
        "score": 0.75,
        "survivors": 12,
        "equivalent": 1,
        "with_survivors": 1,
    }
    sophia = document["implementations"][2]
    assert sophia["equivalent"] == [
        {"mutant": marked.key, "operator": "constant", "reason": "square matrices"}
    ]
    json.dumps(document)  # plain JSON
