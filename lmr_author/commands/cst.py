"""`lmr-author functions | mask | splice | extract`: the libcst engine on its own.

Thin wrappers: read files, call `lmr_author.cst`, write the result atomically (``-o``)
or to stdout as raw bytes (so CRLF, BOM and the file's encoding reach the pipe intact).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lmr_author.util.errors import EXIT_OK, UserError


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the four engine commands."""
    functions = subparsers.add_parser(
        "functions",
        help="list the functions and methods of a file or a repository",
        description="List every function and method of a Python file or of all .py files "
        "under a folder: qualified name, file, lines, async, decorators, first docstring "
        "line and body length. Results are cached per file (mtime and size).",
    )
    functions.add_argument("path", metavar="PATH", type=Path, help="a .py file or a folder")
    functions.add_argument("--json", action="store_true", help="print JSON for machines")
    functions.add_argument("--no-cache", action="store_true", help="ignore and skip the cache")
    functions.add_argument(
        "--workers", type=int, default=None, metavar="N", help="parallel parsers (default: cores)"
    )
    functions.set_defaults(handler=_functions)

    mask = subparsers.add_parser(
        "mask",
        help="replace the body of goal functions with a stub",
        description="Mask one or more functions (or every method of a class) in FILE. "
        "Decorators, signature, docstring and comments stay; everything outside the goal "
        "functions stays byte-identical.",
    )
    mask.add_argument("file", metavar="FILE", type=Path)
    mask.add_argument(
        "functions",
        metavar="FUNCTION",
        nargs="+",
        help="function name, Class.method, or a class name (masks all its methods)",
    )
    _add_target_options(mask)
    mask.add_argument(
        "--style",
        choices=("lmr", "todo"),
        default="lmr",
        help="lmr: docstring, TODO comment, final 'return NAMES' kept (default); "
        "todo: docstring, TODO comment, raise NotImplementedError",
    )
    _add_output_option(mask)
    mask.set_defaults(handler=_mask)

    splice = subparsers.add_parser(
        "splice",
        help="put an implementation back into a masked file",
        description="Replace FUNCTION in MASKED_FILE with the one defined in IMPL: a bare "
        "def, a def in Markdown fences or prose, a method with or without its class, or a "
        "whole file. Helper functions defined next to it are kept, placed just before it.",
    )
    splice.add_argument("file", metavar="MASKED_FILE", type=Path)
    splice.add_argument("function", metavar="FUNCTION")
    splice.add_argument(
        "--impl", required=True, metavar="IMPL", help="file with the implementation ('-': stdin)"
    )
    _add_target_options(splice)
    _add_output_option(splice)
    splice.set_defaults(handler=_splice)

    extract = subparsers.add_parser(
        "extract",
        help="print the exact source of one function",
        description="Print the exact lines of FUNCTION in FILE (decorators to last line).",
    )
    extract.add_argument("file", metavar="FILE", type=Path)
    extract.add_argument("function", metavar="FUNCTION")
    _add_target_options(extract)
    extract.add_argument(
        "--with-class",
        action="store_true",
        help="precede a method with the header line(s) of its class",
    )
    _add_output_option(extract)
    extract.set_defaults(handler=_extract)


def _add_target_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--class", dest="class_name", default="", metavar="CLASS", help="the enclosing class"
    )
    parser.add_argument(
        "--line",
        type=int,
        default=None,
        metavar="N",
        help="any line of the wanted definition, when the name is ambiguous",
    )


def _add_output_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        metavar="OUT",
        help="write here (default: stdout)",
    )


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{what} {path} does not exist.") from None
    except IsADirectoryError:
        raise UserError(f"{what} {path} is a folder; pass a .py file.") from None
    except OSError as error:
        raise UserError(f"cannot read {what} {path}: {error.strerror}.") from None


def _emit(data: bytes, output: Path | None) -> None:
    if output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    from lmr_author.util.atomic import atomic_write_bytes

    try:
        atomic_write_bytes(output, data)
    except OSError as error:
        raise UserError(f"cannot write {output}: {error.strerror}.") from None


def _functions(args: argparse.Namespace) -> int:
    from lmr_author.cst.index import FunctionInfo, list_functions
    from lmr_author.cst.repository import index_repository

    path: Path = args.path
    if path.is_file():
        data = _read(path, "file")
        try:
            infos = list_functions(data)
        except SyntaxError as error:
            raise UserError(
                f"the file does not parse: {error.msg}",
                file=path,
                where=f"line {error.lineno}" if error.lineno else None,
                hint="Fix the syntax error first.",
            ) from None
        except ValueError as error:  # null bytes
            raise UserError(f"the file is not Python source: {error}.", file=path) from None
        files: dict[str, list[FunctionInfo]] = {path.name: infos}
        errors: dict[str, str] = {}
        root = path.parent.resolve()
    elif path.is_dir():
        with _progress_bar() as progress:
            index = index_repository(
                path, use_cache=not args.no_cache, workers=args.workers, progress=progress
            )
        files, errors, root = index.files, index.errors, index.root
    else:
        raise UserError(f"{path} does not exist.", hint="Pass a .py file or a folder.")
    if args.json:
        document = {
            "schema_version": 1,
            "root": str(root),
            "files": [
                {"path": rel, "functions": [info.to_json() for info in infos]}
                for rel, infos in files.items()
            ],
            "errors": [{"path": rel, "error": error} for rel, error in errors.items()],
        }
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        for rel, infos in files.items():
            for info in infos:
                sys.stdout.write(_describe(rel, info) + "\n")
    for rel, reason in errors.items():
        print(f"lmr-author: warning: skipped {rel}: {reason}", file=sys.stderr)
    return EXIT_OK


@contextlib.contextmanager
def _progress_bar() -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr when it is a terminal (rich respects ``NO_COLOR``)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("indexing", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _describe(rel: str, info: Any) -> str:
    parts = [f"{rel}:{info.start_line}-{info.end_line}", info.qualname]
    if info.is_async:
        parts.append("async")
    if info.conditional:
        parts.append("[in if/try/with]")  # a variant: the resolver prefers a plain one
    parts.extend("@" + decorator for decorator in info.decorators)
    parts.append(f"({info.body_lines} line{'' if info.body_lines == 1 else 's'})")
    if info.docstring:
        parts.append(f"- {info.docstring}")
    return " ".join(parts)


def _mask(args: argparse.Namespace) -> int:
    from lmr_author.cst.mask import mask_function, mask_functions

    source = _read(args.file, "file")
    if len(args.functions) == 1:
        masked = mask_function(
            source,
            args.functions[0],
            args.class_name,
            style=args.style,
            line=args.line,
            filename=str(args.file),
        )
    else:
        if args.line is not None:
            raise UserError("--line picks one definition; mask one FUNCTION at a time with it.")
        targets: list[str | tuple[str, str]] = [
            (name, args.class_name) if args.class_name else name for name in args.functions
        ]
        masked = mask_functions(source, targets, style=args.style, filename=str(args.file))
    _emit(masked, args.output)
    return EXIT_OK


def _splice(args: argparse.Namespace) -> int:
    from lmr_author.cst.splice import SpliceError, splice_function

    source = _read(args.file, "masked file")
    if args.impl == "-":
        implementation = sys.stdin.read()
    else:
        implementation = _read(Path(args.impl), "implementation").decode("utf-8", "replace")
    try:
        spliced = splice_function(
            source,
            implementation,
            args.function,
            args.class_name,
            line=args.line,
            filename=str(args.file),
        )
    except SpliceError as error:
        if error.file is not None:
            raise
        impl_name = "stdin" if args.impl == "-" else args.impl
        raise SpliceError(error.message, file=impl_name, hint=error.hint) from None
    _emit(spliced, args.output)
    return EXIT_OK


def _extract(args: argparse.Namespace) -> int:
    from lmr_author.cst.extract import extract_function
    from lmr_author.cst.text import SourceText

    source = _read(args.file, "file")
    text = extract_function(
        source,
        args.function,
        args.class_name,
        line=args.line,
        with_class_context=args.with_class,
        filename=str(args.file),
    )
    encoding = SourceText.from_source(source).encoding
    _emit(text.encode(encoding), args.output)
    return EXIT_OK
