"""`lmr-author sandbox`: manage lmr-author's Docker images and containers, and try a run.

``base-image`` gets the base image (pulled, else built offline), ``build`` a task's
image, ``run`` one implementation's tests against a candidate file, ``list`` and
``prune`` what we made.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.commands._executor import registry_arg
from lmr_author.commands._provisions import add_provision_options, hub_of
from lmr_author.commands._runtime import add_runtime_option
from lmr_author.commands._types import positive_float
from lmr_author.sandbox.decision import PROTOCOLS
from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, UserError

if TYPE_CHECKING:
    from lmr_author.domain.task import Task
    from lmr_author.images.task_images import ImageRef


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "sandbox",
        help="manage the Docker images and containers lmr-author makes",
        description="Manage the Docker images and containers lmr-author makes.",
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    base = actions.add_parser(
        "base-image",
        help="get the base image the task Dockerfiles build FROM: pull it, else build it offline",
        description=(
            "Make sure the engine has TAG, the image the task Dockerfiles build FROM: keep it "
            "if present, else pull it (giving up when the engine says nothing for "
            "--pull-timeout seconds), else build a Debian-based Python image with debootstrap "
            "and import it under TAG (needs root and debootstrap). Says which it did."
        ),
    )
    base.add_argument("--tag", default="python:3.11-slim", help="image name (default: %(default)s)")
    base.add_argument(
        "--pull-timeout",
        type=positive_float,
        default=30.0,
        metavar="SECONDS",
        help="give up the pull after this long without a word from the engine "
        "(default: %(default)g)",
    )
    how = base.add_mutually_exclusive_group()
    how.add_argument("--no-pull", action="store_true", help="build offline without trying to pull")
    how.add_argument("--no-build", action="store_true", help="only pull: fail if that fails")
    base.add_argument("--suite", default="bookworm", help="Debian suite (default: %(default)s)")
    base.add_argument("--mirror", default=None, help="Debian mirror (default: the one apt uses)")
    base.add_argument("--force", action="store_true", help="get it again even if the tag exists")
    base.set_defaults(handler=_base_image)

    build = actions.add_parser(
        "build",
        help="build (or find) a task's test image",
        description=(
            "Build the image of a task from its Dockerfile, with the task folder as context. "
            "The tag hashes everything that goes in, so an unchanged task is not rebuilt."
        ),
    )
    build.add_argument("task", metavar="TASK", help="task folder")
    _image_options(build)
    build.add_argument("--quiet", "-q", action="store_true", help="do not print the build log")
    add_runtime_option(build)
    build.set_defaults(handler=_build)

    run = actions.add_parser(
        "run",
        help="run one implementation's unit tests against a goal file, in a container",
        description=(
            "Run the unit tests of one implementation in a fresh, locked-down container, "
            "with CANDIDATE (default: the golden file) as the goal file. Exit 0 when all "
            "tests pass, 1 otherwise."
        ),
    )
    run.add_argument("task", metavar="TASK", help="task folder")
    run.add_argument("--implementation", "-i", type=int, default=1, help="index (default: 1)")
    which = run.add_mutually_exclusive_group()
    which.add_argument("--candidate", metavar="FILE", help="the whole candidate goal file")
    which.add_argument("--masked", action="store_true", help="test the masked goal file")
    _image_options(run)
    run.add_argument("--timeout", type=positive_float, default=120.0, help="seconds per test file")
    run.add_argument("--memory", type=int, default=1024, help="memory limit in MB")
    add_provision_options(run)
    run.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default="auto",
        help="how the harness's verdict is read (default: auto: replay when the task has "
        "expected_outputs/ for the test, legacy for log-only tests, published for tests "
        "that assert and log Passed/Failed lines to a log file, else exit-code = "
        "in-process tests; the exit status alone never passes)",
    )
    run.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME",
        help="pass this host environment variable to the test (repeatable)",
    )
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.add_argument("--show-log", action="store_true", help="print the tests' output")
    run.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also print where each test run's time went (container, harness, test)",
    )
    add_runtime_option(run)
    run.set_defaults(handler=_run)

    listing = actions.add_parser(
        "list",
        help="list the images and containers lmr-author made",
        description="List the images and containers that carry lmr-author's label.",
    )
    listing.add_argument("--task", default=None, help="only those of this task (folder name)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=_list)

    save = actions.add_parser(
        "save",
        help="save task images as files (for engines on other machines)",
        description=(
            "Build (if needed) the images of the tasks at PATH and save each as "
            "DIR/sha256-<image digest>.tar, which 'lmr-author sandbox load DIR' loads into another "
            "engine under the same id (a cluster node's, say): runs there are keyed "
            "with the same image. Archives already in DIR are kept."
        ),
    )
    save.add_argument("paths", nargs="+", metavar="PATH", help="task or benchmark folders")
    save.add_argument("--to", required=True, type=Path, metavar="DIR", help="where to save")
    _image_options(save)
    save.set_defaults(handler=_save)

    push = actions.add_parser(
        "push",
        help="push task images to a registry (for engines on other machines)",
        description=(
            "Build (if needed) the images of the tasks at PATH and push each to REGISTRY "
            "as REGISTRY/<task image name>:sha256-<image id>. 'eval --executor slurm "
            "--registry REGISTRY' then lets a node that lacks a run's image pull it, and "
            "accepts it only with that very id."
        ),
    )
    push.add_argument("paths", nargs="+", metavar="PATH", help="task or benchmark folders")
    push.add_argument(
        "--to",
        required=True,
        type=registry_arg,
        metavar="HOST[:PORT][/NS]",
        help="the registry (and namespace) to push to",
    )
    _image_options(push)
    push.set_defaults(handler=_push)

    load = actions.add_parser(
        "load",
        help="load saved task images into this engine",
        description="Load every image archive of DIR this engine lacks, checking its id.",
    )
    load.add_argument("folder", type=Path, metavar="DIR", help="a folder 'sandbox save' wrote")
    load.set_defaults(handler=_load)

    prune = actions.add_parser(
        "prune",
        help="remove lmr-author's stopped containers and task images",
        description=(
            "Remove the containers and task images lmr-author made. Running containers and "
            "the base image are kept unless asked for."
        ),
    )
    prune.add_argument("--task", default=None, help="only those of this task (folder name)")
    only = prune.add_mutually_exclusive_group()
    only.add_argument("--containers-only", action="store_true", help="keep the images")
    only.add_argument("--images-only", action="store_true", help="keep the containers")
    prune.add_argument("--running", action="store_true", help="also remove running containers")
    prune.add_argument("--include-base", action="store_true", help="also remove the base image")
    prune.add_argument(
        "--keep",
        action="append",
        default=[],
        metavar="PATH",
        help="keep the current images of the tasks at PATH (a task or benchmark folder; "
        "repeatable): prunes only their outdated images",
    )
    prune.add_argument(
        "--base-image",
        default=None,
        metavar="IMAGE",
        help="the base image the kept tasks are built on, if not their own FROM",
    )
    prune.add_argument("--dry-run", "-n", action="store_true", help="only say what would go")
    prune.add_argument("--json", action="store_true", help="print JSON")
    prune.set_defaults(handler=_prune)
    parser.set_defaults(handler=lambda _args: parser.print_help() or 2)


def _image_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-image",
        default=None,
        metavar="IMAGE",
        help="build FROM this image instead of the Dockerfile's own base",
    )
    parser.add_argument("--rebuild", action="store_true", help="build even if the image exists")


def _base_image(args: argparse.Namespace) -> int:
    from lmr_author.images.base_image import Debootstrap, ensure_base_image

    result = ensure_base_image(
        args.tag,
        pull_timeout=None if args.no_pull else args.pull_timeout,
        build_offline=None if args.no_build else Debootstrap(args.suite, mirror=args.mirror),
        force=args.force,
        on_step=lambda text: print(f"base image {args.tag}: {text}", file=sys.stderr, flush=True),
    )
    state = {
        "present": "already present",
        "pulled": "pulled",
        "built": "built offline with debootstrap",
    }[result.how]
    if result.pull_error is not None:
        state += f" (the pull failed: {result.pull_error})"
    print(f"base image {result.tag}: {state} ({result.image_id[:19]})")
    return EXIT_OK


def _build(args: argparse.Namespace) -> int:
    from lmr_author.domain.task import load_task
    from lmr_author.images.task_images import ensure_image

    task = load_task(args.task)
    on_log = None if args.quiet else (lambda line: print(line, file=sys.stderr))
    image = ensure_image(task, base_image=args.base_image, rebuild=args.rebuild, on_log=on_log)
    state = "built" if image.built else "up to date"
    print(f"{task.name}: {image.tag} {state} ({image.image_id[:19]})")
    return EXIT_OK


def _each_task_image(
    args: argparse.Namespace, publish: Callable[[Any, Task, ImageRef], str]
) -> int:
    """Build (if needed) the image of every task at ``args.paths`` and ``publish`` it
    (save or push), printing one line per task; broken tasks are listed first."""
    from lmr_author.commands._benchmark import print_skipped
    from lmr_author.domain.benchmark import load_benchmark
    from lmr_author.images.task_images import ensure_image
    from lmr_author.runtime.engine import get_client

    client = get_client()
    skipped = False
    for path in args.paths:
        loaded = load_benchmark(path)
        print_skipped(loaded)  # first, one line each
        skipped = skipped or bool(loaded.broken)
        for task in loaded.tasks:
            image = ensure_image(
                task, client=client, base_image=args.base_image, rebuild=args.rebuild
            )
            print(f"{task.name}: {publish(client, task, image)}")
    return EXIT_FINDINGS if skipped else EXIT_OK


def _save(args: argparse.Namespace) -> int:
    from lmr_author.images.archives import save_image

    def save(_client: Any, _task: Task, image: ImageRef) -> str:
        target, wrote = save_image(image.image_id, args.to)
        return f"{target} ({'saved' if wrote else 'already there'})"

    return _each_task_image(args, save)


def _push(args: argparse.Namespace) -> int:
    from lmr_author.images.registry import push_image

    def push(client: Any, task: Task, image: ImageRef) -> str:
        return push_image(client, args.to, task, image)

    return _each_task_image(args, push)


def _load(args: argparse.Namespace) -> int:
    from lmr_author.images.archives import load_images

    if not args.folder.is_dir():
        raise UserError(
            "no such folder", file=args.folder, hint="Give a folder 'sandbox save' wrote."
        )
    done = load_images(args.folder)
    if not done.loaded and not done.present:
        raise UserError(
            "no image archives (sha256-*.tar) here",
            file=args.folder,
            hint="Give the folder 'lmr-author sandbox save PATH --to DIR' wrote.",
        )
    print(f"{len(done.loaded)} image(s) loaded, {len(done.present)} already present")
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    from lmr_author.domain.task import load_task
    from lmr_author.images.task_images import ensure_image
    from lmr_author.runtime.infra_error import InfraError
    from lmr_author.sandbox.golden import load_proof, proof_key
    from lmr_author.sandbox.limits import Limits
    from lmr_author.sandbox.run_phases import format_phases
    from lmr_author.sandbox.run_spec import RunSpec
    from lmr_author.sandbox.runner import pass_env, run_tests

    task = load_task(args.task)
    impl = task.implementation(args.implementation)
    candidate: bytes | None
    if args.masked:
        candidate = None
    else:
        path = args.candidate or impl.golden_path
        try:
            with open(path, "rb") as handle:
                candidate = handle.read()
        except OSError as error:
            raise UserError(
                f"cannot read the candidate goal file ({error.strerror})",
                file=path,
                hint="Give an existing file with --candidate.",
            ) from None
    image = ensure_image(task, base_image=args.base_image, rebuild=args.rebuild)
    limits = Limits(
        memory_mb=args.memory, timeout_s=args.timeout, gpus=args.gpus, hf_cache=hub_of(args)
    )
    # Held to the golden counts, and isolated or not, as validate --run (or eval) proved.
    proof = load_proof(proof_key(task, impl, image, limits))
    spec = RunSpec(task, impl, candidate, image, limits, protocol=args.protocol)
    result = run_tests(spec.held_to(proof), env=pass_env(args.env, os.environ))
    if result.infra_error and not args.json:
        raise InfraError(result.infra_error, hint="The candidate was not tested.")
    if args.json:
        payload = {
            "task": task.name,
            "implementation": impl.index,
            "verdict": result.verdict,
            "image_id": result.image_id,
            "infra_error": result.infra_error,
            "wall_s": round(result.wall_s, 3),
            "tests": [item.to_json() for item in result.verdicts],
        }
        print(json.dumps(payload, indent=2))
    else:
        for item in result.verdicts:
            print(f"{item.test_file}: {item.verdict} ({item.reason}) in {item.duration_s:.2f}s")
            if args.verbose and item.phases:
                print("\n".join(format_phases(item.phases, cpu_s=item.cpu_s)))
            if args.show_log and item.log:
                print(item.log.rstrip())
        print(f"{task.name} #{impl.index}: {result.verdict}")
        if proof is None:
            print("(not held to the golden test count: none proven yet; run validate --run)")
    if result.infra_error:
        return EXIT_USAGE
    return EXIT_OK if result.passed else EXIT_FINDINGS


def _list(args: argparse.Namespace) -> int:
    from lmr_author.sandbox.housekeeping import list_resources

    found = list_resources(task=args.task)
    if args.json:
        print(json.dumps(found.to_json(), indent=2))
        return EXIT_OK
    print(f"images ({len(found.images)}):")
    for image in found.images:
        name = ", ".join(image.tags) or image.id[:19]
        size = image.size_bytes / 1e6
        print(f"  {name}  {image.kind}  task={image.task or '-'}  {size:.0f} MB")
    if found.images:
        print("  (sizes include the layers images share with their base)")
    print(f"containers ({len(found.containers)}):")
    for container in found.containers:
        print(f"  {container.name}  {container.status}  task={container.task or '-'}")
    return EXIT_OK


def _prune(args: argparse.Namespace) -> int:
    from lmr_author.domain.task import find_task_dirs, load_task
    from lmr_author.sandbox.housekeeping import current_tags, prune

    keep: set[str] = set()
    if args.keep:
        tasks = [load_task(path) for where in args.keep for path in find_task_dirs(where)]
        keep = current_tags(tasks, base_image=args.base_image)
    result = prune(
        keep_tags=keep,
        task=args.task,
        images=not args.containers_only,
        containers=not args.images_only,
        include_running=args.running,
        include_base=args.include_base,
        dry_run=args.dry_run,
    )
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return EXIT_OK
    verb = "would remove" if args.dry_run else "removed"
    for name in result.removed_containers:
        print(f"{verb} container {name}")
    for name in result.removed_images:
        print(f"{verb} image {name}")
    for name in result.kept_images:
        print(f"kept current image {name}")
    for note in result.skipped:
        print(f"kept {note}")
    print(
        f"{verb} {len(result.removed_containers)} container(s) and "
        f"{len(result.removed_images)} image(s) ({result.removed_image_bytes / 1e6:.0f} MB)"
    )
    return EXIT_OK
