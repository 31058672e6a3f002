"""The `lmr-author` command line: parse arguments, call the library, format output.

Each sub-command lives in its own module under `lmr_author.commands` and exposes
``register(subparsers)``, which adds its parser and sets ``handler`` to a function
``(args) -> int``. Command modules import heavy libraries inside their handlers so that
``lmr-author --help`` stays fast.

Bad input is caught where it enters (`lmr_author.util.json_input`, the loaders, argparse
types) and explained as a `UserError`. Whatever still escapes is a bug: the last
resort here prints it as one "internal error" paragraph with exit 2, never a traceback
(``LMR_AUTHOR_DEBUG=1`` shows the traceback for a bug report).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from types import FrameType

from lmr_author import __version__
from lmr_author.commands._runtime import check_runtime_args
from lmr_author.util.errors import EXIT_USAGE, UserError

#: Command modules, in the order their commands appear in ``--help``.
COMMAND_MODULES = (
    "lmr_author.commands.new_task",
    "lmr_author.commands.validate",
    "lmr_author.commands.strengthen",
    "lmr_author.commands.cst",
    "lmr_author.commands.eval",
    "lmr_author.commands.judge",
    "lmr_author.commands.review",
    "lmr_author.commands.agreement",
    "lmr_author.commands.labels",
    "lmr_author.commands.generate",
    "lmr_author.commands.prepare",
    "lmr_author.commands.collect",
    "lmr_author.commands.paper",
    "lmr_author.commands.report",
    "lmr_author.commands.sandbox",
)

DESCRIPTION = """\
Build, validate and score paper-reproduction benchmarks in the style of LMR-Bench.

An LLM agent gets a research paper, a repository with one function masked, and an
instruction, and must write the function back. lmr-author authors such tasks
(new-task), checks them (validate), and scores submissions with unit tests in Docker,
an LLM judge and human labels (eval, judge, review, agreement).
"""

EPILOG = """\
exit codes: 0 ok, 1 findings or failures, 2 usage or input error.
Run 'lmr-author COMMAND --help' for the options of one command.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lmr-author",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"lmr-author {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(module_name)
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        with _hangups_interrupt():
            check_runtime_args(args)
            return int(handler(args))
    except UserError as error:
        print(f"lmr-author: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("lmr-author: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as error:
        if error.filename is None:
            print(internal_error(error, argv), file=sys.stderr)
        else:  # a path the user gave (or its folder) that cannot be used as asked
            print(path_error(error), file=sys.stderr)
        return EXIT_USAGE
    except (Exception, RecursionError) as error:  # the last resort: a bug, not bad input
        if os.environ.get("LMR_AUTHOR_DEBUG"):
            traceback.print_exc()
        print(internal_error(error, argv), file=sys.stderr)
        return EXIT_USAGE


@contextlib.contextmanager
def _hangups_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP (a closed terminal, a dropped ssh session) end a command as
    Ctrl-C does: its clean-up runs (Slurm jobs cancelled, containers removed), and what
    finished is kept. Commands with their own handling (eval's pool) install theirs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def path_error(error: OSError) -> str:
    """One paragraph for a path that cannot be used: which, why, what to do."""
    why = error.strerror or type(error).__name__
    return (
        f"lmr-author: error: cannot use {error.filename}: {why}. Check the path (a folder "
        "option needs a folder, not a file) and that you may read and write there, then "
        "run the command again."
    )


def internal_error(error: BaseException, argv: Sequence[str] | None) -> str:
    """One paragraph for an unexpected exception: what, where it came from, what to do."""
    where = ""
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = frames[-1]
        where = f" in {os.path.basename(last.filename)}:{last.lineno}"
    detail = " ".join(str(error).split())[:300]
    filename = getattr(error, "filename", None)
    about = f" (file: {filename})" if filename else ""
    command = " ".join(sys.argv[1:] if argv is None else argv)[:200]
    return (
        f"lmr-author: internal error: {type(error).__name__}{where}: {detail}{about}. This "
        f"is a bug in lmr-author, not in your input; please report it with the command "
        f"line ({command}) and the output of the same command with LMR_AUTHOR_DEBUG=1."
    )


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
