"""Goal suggestions: the sample tasks' goal functions rank at the top, with a reason; the
code's conventions (tests, copied libraries, copies, scripts, optimizers) weigh as they
should."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from lmr_author.authoring.suggest import code_facts, suggest_goals, words

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted(p for p in (ROOT / "benchmark").glob("0*") if p.is_dir())


def test_identifiers_split_into_words() -> None:
    assert words("robustScore_v2 of the HTTPServer losses SimPOTrainer") == [
        "robustscore",
        "robust",
        "score",
        "httpserver",
        "http",
        "server",
        "loss",
        "simpotrainer",
        "sim",
        "trainer",
        "simpo",
        "potrainer",
    ]


@pytest.mark.parametrize("task_dir", SAMPLES, ids=[p.name for p in SAMPLES])
def test_goal_functions_of_the_samples_are_in_the_top_three(task_dir: Path) -> None:
    info = json.loads((task_dir / "info.json").read_text(encoding="utf-8"))
    pages = json.loads(
        (task_dir / info["repo_folder_name"] / "paper.json").read_text(encoding="utf-8")
    )
    golden_repo = ROOT / "benchmark" / "_sources" / "tasks" / task_dir.name / "repo"
    suggestions = suggest_goals(golden_repo, pages, limit=3)
    names = [(s.goal_file, s.goal_function) for s in suggestions]
    for impl in info["implementations"]:
        assert (impl["goal_file"], impl["goal_function"]) in names
    top = suggestions[0]
    assert top.terms and top.passage and top.page
    assert top.why().startswith("matches ")


PAPER = {
    "1": "Contrastive Margins for Preference Optimization\nAbstract\n"
    "We propose MarginPO, a margin loss for preference optimization.\n",
    "2": "3\nMethod\nThe MarginPO loss of a chosen and a rejected response is\n"
    "L = -log sigmoid(beta (logp_chosen - logp_rejected) - gamma) (2)\n"
    "where beta scales the log-probability margin and gamma is a target margin.\n",
}
LOSS = """
import torch.nn.functional as F


def marginpo_loss(logp_chosen, logp_rejected, beta, gamma):
    \"\"\"The MarginPO loss: a logistic loss on the log-probability margin.\"\"\"
    margin = beta * (logp_chosen - logp_rejected) - gamma
    losses = -F.logsigmoid(margin)
    return losses.mean()
"""
SCRIPT = """
import argparse
from losses import marginpo_loss


def parse_args():
    parser = argparse.ArgumentParser("MarginPO preference optimization")
    parser.add_argument("--beta", type=float, help="beta of the MarginPO loss margin")
    parser.add_argument("--gamma", type=float, help="gamma, the target margin")
    parser.add_argument("--chosen", help="logp of the chosen response")
    parser.add_argument("--rejected", help="logp of the rejected response")
    return parser.parse_args()


def main():
    args = parse_args()
    print(marginpo_loss(args.chosen, args.rejected, args.beta, args.gamma))


if __name__ == "__main__":
    main()
"""


def _repo(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _found(suggestions: list) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(s.goal_file, s.goal_function) for s in suggestions]


def test_the_loss_ranks_above_the_script_that_runs_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"losses.py": LOSS, "train.py": SCRIPT})
    found = _found(suggest_goals(repo, PAPER))
    assert found[0] == ("losses.py", "marginpo_loss")
    # its help texts say the paper's words, its code none: it is about the loss, not it
    assert ("train.py", "parse_args") not in found


def test_a_script_s_main_ranks_below_the_function_it_runs_even_with_more_paper_words(
    tmp_path: Path,
) -> None:
    from lmr_author.authoring.suggest.code_facts import scan_repository
    from lmr_author.authoring.suggest.paper_text import paper_profile
    from lmr_author.authoring.suggest.rank import score_functions

    loss = LOSS.replace("marginpo_loss", "pair_value").replace("MarginPO ", "")
    inlined = (
        "    # MarginPO preference optimization: log-probability margin of the responses\n"
        "    logp_chosen, logp_rejected = float(args.chosen), float(args.rejected)\n"
        "    margin = args.beta * (logp_chosen - logp_rejected) - args.gamma\n"
        "    print(margin, args.beta, args.gamma)  # MarginPO margin, beta, gamma\n"
    )
    script = SCRIPT.replace("marginpo_loss", "pair_value").replace(
        "    args = parse_args()\n", "    args = parse_args()\n" + inlined
    )
    repo = _repo(tmp_path, {"losses.py": loss, "train.py": script})
    paper = paper_profile(PAPER)
    scored = {
        s.function.name: s for s in score_functions(scan_repository(repo, paper.terms), paper)
    }
    main, objective = scored["main"], scored["pair_value"]
    assert main.words + main.names > objective.words + objective.names
    assert _found(suggest_goals(repo, PAPER, limit=1)) == [("losses.py", "pair_value")]


def test_tests_are_never_suggested(tmp_path: Path) -> None:
    test = "from losses import marginpo_loss\n\ndef test_marginpo_loss_margin_beta_gamma():\n"
    test += "    assert marginpo_loss(1.0, 0.0, 1.0, 0.0) > 0  # MarginPO loss margin\n"
    repo = _repo(
        tmp_path,
        {"losses.py": LOSS, "tests/test_losses.py": test, "unit_test/unit_test_1.py": test},
    )
    files = {s.goal_file for s in suggest_goals(repo, PAPER, limit=100)}
    assert files == {"losses.py"}


def test_a_copied_library_ranks_below_the_repository_s_own_code(tmp_path: Path) -> None:
    library = {
        f"transformers/models/m{k}/loss.py": LOSS.replace("losses = -F", f"l{k} = -F")
        for k in range(45)
    }
    own = LOSS.replace("marginpo_loss", "preference_loss")
    repo = _repo(tmp_path, {**library, "method/losses.py": own})
    assert _found(suggest_goals(repo, PAPER, limit=1)) == [("method/losses.py", "preference_loss")]
    # a package of the repository's own that happens to have a library's name is its own
    small = {"peft/losses.py": own, "train.py": SCRIPT}
    repo = _repo(tmp_path / "small", small)
    assert _found(suggest_goals(repo, PAPER, limit=1)) == [("peft/losses.py", "preference_loss")]


def test_copies_of_a_function_are_one_suggestion_shown_at_the_original(tmp_path: Path) -> None:
    files = {"losses.py": LOSS, **{f"experiments/e{k}/losses.py": LOSS for k in range(4)}}
    repo = _repo(tmp_path, files)
    [first] = suggest_goals(repo, PAPER, limit=1)
    assert (first.goal_file, first.goal_function) == ("losses.py", "marginpo_loss")
    assert sorted(first.copies) == [f"experiments/e{k}/losses.py" for k in range(4)]


def test_an_optimizer_step_is_its_algorithm(tmp_path: Path) -> None:
    optimizer = """
    import torch
    from torch.optim.optimizer import Optimizer


    class Lion(Optimizer):
        def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
            super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    grad = p.grad
                    exp_avg = self.state[p].setdefault("exp_avg", torch.zeros_like(p))
                    beta1, beta2 = group["betas"]
                    update = exp_avg * beta1 + grad * (1 - beta1)
                    p.add_(torch.sign(update), alpha=-group["lr"])
                    exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)


    def momentum_sign_update(momentum, grad, beta1, beta2):
        \"\"\"Lion's sign of the interpolated momentum, for plots of the update.\"\"\"
        interpolated = momentum * beta1 + grad * (1 - beta1)
        update = torch.sign(interpolated)
        momentum = momentum * beta2 + grad * (1 - beta2)
        norm = update.abs().mean()
        print("Lion update norm", norm)
        return update, momentum
    """
    paper = {
        "1": "Symbolic Discovery of Optimization Algorithms\n2\nMethod\n"
        "Lion tracks only momentum and takes the sign of the update (1):\n"
        "update = sign(beta1 m + (1 - beta1) g); m = beta2 m + (1 - beta2) g. "
        "The learning rate of Lion is smaller than AdamW's, the weight decay larger.\n"
        "We call the discovered optimizer Lion, and Lion needs less memory than AdamW.\n"
    }
    repo = _repo(tmp_path, {"lion.py": optimizer})
    assert _found(suggest_goals(repo, paper, limit=1)) == [("lion.py", "step")]


def test_a_big_repository_parses_only_the_files_that_match_the_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    filler = "def helper_{k}(rows):\n    return [row.strip() for row in rows]\n" * 20
    files = {f"vendor_tools/t{k}.py": filler.replace("{k}", str(k)) for k in range(30)}
    repo = _repo(tmp_path, {**files, "losses.py": LOSS})
    monkeypatch.setattr(code_facts, "PARSE_BUDGET_LINES", 15)
    scanned = code_facts.scan_repository(repo, {"marginpo": 3.0, "margin": 2.0, "loss": 1.0})
    assert {f.file for f in scanned.functions} == {"losses.py"}
    assert len(scanned.files) == 31
    assert _found(suggest_goals(repo, PAPER, limit=1)) == [("losses.py", "marginpo_loss")]


def test_suggestions_say_why(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"losses.py": LOSS})
    [top] = suggest_goals(repo, PAPER, limit=1)
    assert top.page == "2" and top.section == "Method"
    assert "MarginPO loss" in top.passage
    assert top.terms and set(top.terms) <= set(words(top.passage)) & set(words(LOSS))
    assert top.why().startswith("matches ") and "page 2, Method" in top.why()


def test_no_paper_text_or_no_code_means_no_suggestion(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"losses.py": LOSS})
    assert suggest_goals(repo, {"1": ""}) == []
    assert suggest_goals(_repo(tmp_path / "empty", {"README.md": "x"}), PAPER) == []


def test_code_facts_say_what_a_function_calls_how_much_it_computes_and_what_scripts_call(
    tmp_path: Path,
) -> None:
    script = """
    import numpy as np
    from helpers import describe


    def margin(a, b, beta):
        gap = beta * (a - b)
        return np.log1p(np.exp(-gap)).mean()


    def report(rows):
        names = [row["name"] for row in rows]
        describe(names)
        return {"names": names}


    rows = load_rows()
    if __name__ == "__main__":
        report(rows)
    """
    repo = _repo(tmp_path, {"analysis.py": script})
    scanned = code_facts.scan_repository(repo, {})
    functions = {f.name: f for f in scanned.functions}
    assert functions["margin"].math == pytest.approx(2 / 3)  # all but the ``def`` line
    assert functions["report"].math == 0.0  # string keys and calls arrange, they don't compute
    assert functions["report"].calls == {"describe"}
    assert {"load_rows", "report"} <= set(scanned.script_calls)
    assert "margin" not in scanned.script_calls


def test_the_function_that_computes_beats_the_one_that_arranges_the_same_words(
    tmp_path: Path,
) -> None:
    computes = """
    def margin_of(chosen, rejected, beta, gamma):
        # MarginPO: margin of the chosen over the rejected log-probability
        margin = beta * (chosen - rejected)
        margin = margin - gamma
        return margin
    """
    arranges = """
    def margin_of(chosen, rejected, beta, gamma):
        # MarginPO: margin of the chosen over the rejected log-probability
        margin = dict(chosen=chosen, rejected=rejected)
        margin.update(beta=beta, gamma=gamma)
        return margin
    """
    repo = _repo(tmp_path, {"a_config.py": arranges, "b_loss.py": computes})
    assert _found(suggest_goals(repo, PAPER, limit=1)) == [("b_loss.py", "margin_of")]


def test_a_name_the_paper_writes_as_code_counts(tmp_path: Path) -> None:
    from lmr_author.authoring.suggest.paper_text import paper_profile

    paper = dict(PAPER)
    paper["3"] = "4 Implementation\nThe margin is computed by \\texttt{pair\\_gap} (Eq. 2).\n"
    assert "pair_gap" in paper_profile(paper).identifiers
    assert "implementation" not in paper_profile(paper).identifiers
    markdown = {"1": "# Method\nWe call `scoreMargins` and `forward` on each batch.\n"}
    assert paper_profile(markdown).identifiers == {"scoremargins"}
    body = "(chosen, rejected, scale):\n    gap = chosen - rejected\n    return gap / scale\n"
    repo = _repo(tmp_path, {"a.py": "def pair_diff" + body, "b.py": "def pair_gap" + body})
    assert _found(suggest_goals(repo, paper, limit=1)) == [("b.py", "pair_gap")]
    assert _found(suggest_goals(repo, PAPER, limit=1)) == [("a.py", "pair_diff")]


def test_a_class_copied_and_edited_is_one_suggestion_shown_at_the_least_nested_copy(
    tmp_path: Path,
) -> None:
    module = """
    import torch


    class MarginHead(torch.nn.Module):
        def forward(self, chosen, rejected, beta, gamma):
            # MarginPO loss margin of the chosen and rejected log-probability
            margin = beta * (chosen - rejected) - gamma
            return -torch.nn.functional.logsigmoid(margin).mean()
    """
    edited = module.replace(
        "            return", "            margin = margin.clamp(min=-50.0)\n            return"
    )
    repo = _repo(tmp_path, {"src/models/heads/margin.py": edited, "standalone_margin.py": module})
    found = suggest_goals(repo, PAPER, limit=10)
    forwards = [s for s in found if s.goal_function == "forward"]
    assert len(forwards) == 1
    assert forwards[0].goal_file == "standalone_margin.py"
    assert forwards[0].copies == ["src/models/heads/margin.py"]


def test_an_orchestrator_of_many_own_functions_ranks_below_the_step_it_delegates(
    tmp_path: Path,
) -> None:
    from lmr_author.authoring.suggest import rank
    from lmr_author.authoring.suggest.code_facts import scan_repository
    from lmr_author.authoring.suggest.paper_text import paper_profile

    helpers = "".join(f"def step_{k}(x):\n    return x\n\n\n" for k in range(8))
    calls = "".join(f"    margin = step_{k}(margin) * 1.0\n" for k in range(8))
    orchestrator = (
        "def margin_pipeline(chosen, rejected, beta, gamma):\n"
        "    # MarginPO loss: margin of the chosen and rejected log-probability\n"
        "    margin = beta * (chosen - rejected) - gamma\n" + calls + "    return margin\n"
    )
    leaf = (
        "def margin_value(chosen, rejected, beta, gamma):\n"
        "    # MarginPO loss: margin of the chosen and rejected log-probability\n"
        "    margin = beta * (chosen - rejected) - gamma\n" + "    margin = margin * 1.0\n" * 8
    ) + "    return margin\n"
    repo = _repo(tmp_path, {"a.py": helpers + orchestrator, "b.py": leaf})
    paper = paper_profile(PAPER)
    scored = {
        s.function.name: s for s in rank.score_functions(scan_repository(repo, paper.terms), paper)
    }
    assert scored["margin_value"].score > scored["margin_pipeline"].score
    assert scored["margin_value"].prior > scored["margin_pipeline"].prior


def test_an_example_of_use_weighs_less_than_the_code_it_shows(tmp_path: Path) -> None:
    from lmr_author.authoring.suggest import rank
    from lmr_author.authoring.suggest.code_facts import scan_repository
    from lmr_author.authoring.suggest.paper_text import paper_profile

    demo = LOSS.replace("marginpo_loss", "run_marginpo_loss")
    repo = _repo(tmp_path, {"examples/a.py": demo, "method/b.py": LOSS})
    paper = paper_profile(PAPER)
    scored = {
        s.function.file: s for s in rank.score_functions(scan_repository(repo, paper.terms), paper)
    }
    assert scored["examples/a.py"].prior < scored["method/b.py"].prior
    assert _found(suggest_goals(repo, PAPER, limit=1)) == [("method/b.py", "marginpo_loss")]


def test_a_call_inside_an_f_string_is_a_call(tmp_path: Path) -> None:
    script = """
    def gap(matrix):
        return matrix.mean() - matrix.min()


    def report(matrix):
        print(f"gap {gap(matrix):.3f} of {{matrix}}")


    print(f"{report(load())}", "{not_a_call(1)}", rf"{also_called(2)}")
    """
    scanned = code_facts.scan_repository(_repo(tmp_path, {"analysis.py": script}), {})
    functions = {f.name: f for f in scanned.functions}
    assert functions["report"].calls == {"gap", "print"}
    assert {"report", "load", "also_called"} <= set(scanned.script_calls)
    assert "not_a_call" not in scanned.script_calls
    assert functions["report"].bag["matrix"] == 2  # the field's code, once; no brace word


def test_a_module_s_forward_carries_the_words_of_what_its_init_made(tmp_path: Path) -> None:
    module = '''
    import torch


    class MarginHead(torch.nn.Module):
        """Scores the MarginPO preference margin."""

        def __init__(self, beta_scale, gamma_offset):
            super().__init__()
            self.beta_scale = beta_scale
            self.gamma_offset = gamma_offset

        def forward(self, a, b):
            return self.beta_scale * (a - b) - self.gamma_offset

        def describe(self):
            return f"{self.beta_scale}"


    class Plain:
        def __init__(self):
            self.preference_margin = 1

        def forward(self, x):
            return x * 2
    '''
    scanned = code_facts.scan_repository(_repo(tmp_path, {"head.py": module}), {})
    facts = {(f.class_name, f.name): f for f in scanned.functions}
    forward = facts[("MarginHead", "forward")].bag
    assert forward["marginpo"] == 1 and forward["scale"] >= 2  # docstring; __init__ words
    assert "marginpo" not in facts[("MarginHead", "describe")].bag  # not a framework entry
    assert "preference" not in facts[("Plain", "forward")].bag  # not a module


def test_a_function_that_declares_options_parses_options_whatever_its_name(
    tmp_path: Path,
) -> None:
    from lmr_author.authoring.suggest.code_facts import scan_repository
    from lmr_author.authoring.suggest.paper_text import paper_profile
    from lmr_author.authoring.suggest.rank import score_functions

    renamed = SCRIPT.replace("parse_args()", "marginpo_settings()")
    repo = _repo(tmp_path, {"losses.py": LOSS, "named.py": SCRIPT, "renamed.py": renamed})
    paper = paper_profile(PAPER)
    scored = {
        s.function.name: s for s in score_functions(scan_repository(repo, paper.terms), paper)
    }
    assert scored["marginpo_settings"].prior == pytest.approx(scored["parse_args"].prior)
    assert _found(suggest_goals(repo, PAPER, limit=1)) == [("losses.py", "marginpo_loss")]


def test_an_overload_stub_is_never_suggested_its_implementation_is(tmp_path: Path) -> None:
    stubs = (
        "from typing import overload\n\n\n"
        "@overload\n"
        "def marginpo_loss(logp_chosen: float, logp_rejected: float, beta: float) -> float:\n"
        '    """The MarginPO loss of one pair: margin, beta, gamma, log-probability."""\n\n\n'
        "@typing.overload\n"
        "def marginpo_loss(logp_chosen: list, logp_rejected: list, beta: float) -> list: ...\n"
    )
    source = stubs + textwrap.dedent(LOSS)
    repo = _repo(tmp_path, {"losses.py": source})
    implementation = 1 + source.splitlines().index(
        "def marginpo_loss(logp_chosen, logp_rejected, beta, gamma):"
    )
    found = [s for s in suggest_goals(repo, PAPER) if s.goal_function == "marginpo_loss"]
    assert [(s.goal_file, s.line) for s in found] == [("losses.py", implementation)]
    assert suggest_goals(repo, PAPER, limit=1)[0].line == implementation


def test_an_init_that_computes_the_paper_s_parameters_can_be_suggested(tmp_path: Path) -> None:
    schedule = """
    import torch


    class MarginSchedule:
        \"\"\"The MarginPO margin schedule: gamma grows from gamma_start over the steps.\"\"\"

        def __init__(self, gamma_start, gamma_end, steps):
            ratio = (gamma_end / gamma_start) ** (1.0 / steps)
            self.gammas = gamma_start * ratio ** torch.arange(steps)
            self.betas = 1.0 / (1.0 + self.gammas.cumsum(0) / steps)

        def gamma_at(self, step):
            return self.gammas[step]


    class Settings:
        def __init__(self, gamma_start, gamma_end, steps, beta):
            self.gamma_start = gamma_start
            self.gamma_end = gamma_end
            self.steps = steps
            self.beta = beta
    """
    paper = {
        "1": "Scheduled Margins for Preference Optimization\n2\nMethod\n"
        "MarginPO grows the target margin gamma geometrically from gamma_start to "
        "gamma_end over the steps of training, and beta follows the cumulative margin:\n"
        "gamma_t = gamma_start (gamma_end / gamma_start)^(t / T) (1)\n"
        "beta_t = 1 / (1 + sum_{s<=t} gamma_s / T) (2)\n"
    }
    repo = _repo(tmp_path, {"schedule.py": schedule})
    found = [(s.class_name, s.goal_function) for s in suggest_goals(repo, paper, limit=3)]
    assert found[0] == ("MarginSchedule", "__init__")
    assert ("Settings", "__init__") not in found[:1]


_SCORES = """
import json, sys
from pathlib import Path
from lmr_author.authoring.suggest.code_facts import scan_repository
from lmr_author.authoring.suggest.paper_text import paper_profile
from lmr_author.authoring.suggest.rank import score_functions
paper = paper_profile(json.loads(sys.argv[2]))
scored = score_functions(scan_repository(Path(sys.argv[1]), paper.terms), paper)
print(json.dumps([[s.function.file, s.function.name, s.score.hex()] for s in scored]))
"""


def test_scores_and_their_ties_do_not_follow_the_hash_seed(tmp_path: Path) -> None:
    """Two equal functions tie exactly whatever the process's hash seed: the scores'
    float sums once ran in a set's order, so the last bit (and the order of equal
    functions) changed from one process to the next."""
    import os
    import subprocess
    import sys

    body = "(chosen, rejected, scale):\n    gap = chosen - rejected\n    return gap / scale\n"
    repo = _repo(tmp_path, {"a.py": "def pair_diff" + body, "b.py": "def pair_gap" + body})
    outputs = set()
    for seed in ("1", "5", "9", "23"):
        done = subprocess.run(
            [sys.executable, "-c", _SCORES, str(repo), json.dumps(PAPER)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs
    (scored,) = (json.loads(text) for text in outputs)
    assert [row[:2] for row in scored[:2]] == [["a.py", "pair_diff"], ["b.py", "pair_gap"]]
    assert scored[0][2] == scored[1][2]
