"""The LLM judge: prompt templates, OpenAI-compatible client, cache and answer parsing.

``run_judging`` judges the runs of an eval output folder and writes
``OUTPUT/judgments/<system>/<task>/<index>.json``; ``load_judgments`` reads them back;
``load_published_judgments`` imports the judge outputs published with LMR-Bench. The
``openai`` package is imported only when a request is made.
"""

from lmr_author.judge.client import Usage
from lmr_author.judge.config import DEFAULT_MODEL, JudgeConfig, JudgeNotConfigured, config_from_env
from lmr_author.judge.parse import ParsedAnswer, parse_judge_answer
from lmr_author.judge.published import (
    PublishedJudgment,
    load_published_judgments,
    scan_published_judgments,
)
from lmr_author.judge.runner import run_judging, summarize_output
from lmr_author.judge.store import Judgment, load_judgments
from lmr_author.judge.summary import JudgeSummary

__all__ = [
    "DEFAULT_MODEL",
    "JudgeConfig",
    "JudgeNotConfigured",
    "JudgeSummary",
    "Judgment",
    "ParsedAnswer",
    "PublishedJudgment",
    "Usage",
    "config_from_env",
    "load_judgments",
    "load_published_judgments",
    "parse_judge_answer",
    "run_judging",
    "scan_published_judgments",
    "summarize_output",
]
