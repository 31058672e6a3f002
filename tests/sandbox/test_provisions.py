"""GPUs and the model cache a test container is given, and why a task cannot run here."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.domain.task import Implementation
from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.sandbox import provisions
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.needs import missing_resource
from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict
from lmr_author.util.errors import UserError


@pytest.mark.parametrize("spec", ["all", "1", "2", "device=0", "device=0,3"])
def test_gpu_requests_as_docker_takes_them(spec: str) -> None:
    assert provisions.parse_gpus(f" {spec} ") == spec
    (request,) = provisions.device_requests(spec)
    assert request["Capabilities"] == [["gpu"]]
    if spec == "all":
        assert request["Count"] == -1
    elif spec.startswith("device="):
        assert request["DeviceIDs"] == spec.removeprefix("device=").split(",")
    else:
        assert request["Count"] == int(spec)


@pytest.mark.parametrize("spec", ["", "0", "none", "gpu=1", "device=", "device=a", "-1", "1,2"])
def test_a_bad_gpu_request_is_refused_with_the_forms_it_takes(spec: str) -> None:
    with pytest.raises(UserError) as caught:
        provisions.parse_gpus(spec)
    assert "--gpus all" in caught.value.render()


def test_no_gpu_request_without_gpus() -> None:
    assert provisions.device_requests(None) == []


def _cache(root: Path, revision: str = "abc123") -> Path:
    repo = root / "hub" / "models--org--tiny"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision + "\n")
    (repo / "snapshots" / revision).mkdir(parents=True)
    (repo / "snapshots" / revision / "config.json").write_text("{}")
    return root


def test_a_huggingface_home_mounts_its_hub_folder_only(tmp_path: Path) -> None:
    home = _cache(tmp_path / "huggingface")
    (home / "token").write_text("hf_secret")
    assert provisions.hub_folder(home) == (home / "hub").resolve()
    assert provisions.hub_folder(home / "hub") == (home / "hub").resolve()


def test_a_folder_to_mount_that_holds_a_token_is_refused(tmp_path: Path) -> None:
    home = _cache(tmp_path / "huggingface")
    (home / "hub" / "token").write_text("hf_secret")
    with pytest.raises(UserError) as caught:
        provisions.hub_folder(home)
    assert "credentials (token)" in caught.value.render()


def test_a_missing_cache_folder_says_so(tmp_path: Path) -> None:
    with pytest.raises(UserError) as caught:
        provisions.hub_folder(tmp_path / "nope")
    assert "no such folder" in caught.value.render()


def test_the_run_key_part_follows_the_revisions_not_the_path(tmp_path: Path) -> None:
    one = provisions.hub_folder(_cache(tmp_path / "one"))
    two = provisions.hub_folder(_cache(tmp_path / "two"))
    other = provisions.hub_folder(_cache(tmp_path / "other", revision="def456"))
    assert provisions.settings(None, str(one)) == provisions.settings(None, str(two))
    assert provisions.settings(None, str(one)) != provisions.settings(None, str(other))
    assert provisions.settings(None, None) == {}


def test_run_keys_without_provisions_are_those_made_before_they_existed() -> None:
    plain = DockerBackend().settings()
    assert set(plain) == {"protocol", "limits", "harness"}
    assert set(plain["limits"]) == {"memory_mb", "cpus", "pids", "timeout_s", "network"}
    with_gpus = DockerBackend(gpus="all").settings()
    assert with_gpus["gpus"] == "all" and with_gpus["limits"] == plain["limits"]


def test_the_hub_is_offline_in_every_test_and_found_when_mounted() -> None:
    assert provisions.cache_env(False) == provisions.OFFLINE_ENV
    mounted = provisions.cache_env(True)
    assert mounted["HF_HUB_CACHE"] == provisions.HUB_MOUNT
    assert mounted["HF_HUB_OFFLINE"] == "1"
    assert provisions.volumes("/data/hub") == {
        "/data/hub": {"bind": provisions.HUB_MOUNT, "mode": "ro"}
    }


def _impl(repo: Path) -> Implementation:
    repo.mkdir(parents=True, exist_ok=True)
    return Implementation(
        index=1,
        instruction="",
        category="",
        goal_file="m.py",
        goal_function="f",
        class_name="",
        golden_file="golden_files/m.py",
        unit_test_file="unit_test/unit_test_1.py",
        retrieval_context=[],
        repo_dir=repo,
        task_dir=repo.parent,
    )


def _failed(log: str, legacy: str | None = None) -> ImplementationRun:
    verdict = TestVerdict(
        test_file="unit_test/unit_test_1.py",
        verdict="error",
        reason="the test raised",
        duration_s=1.0,
        log=log,
        exit_code=1,
        legacy_log=legacy,
    )
    return ImplementationRun(verdicts=[verdict], image_id="sha256:x")


GPU_LOG = 'Traceback ...\n  File "m.py"\nAssertionError: Torch not compiled with CUDA enabled\n'
HUB_LOG = (
    "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't "
    "find it in the cached files and it looks like meta-llama/Llama-2-7b-hf is not the path "
    "to a directory containing a file named config.json.\n"
)


def test_a_golden_run_that_needs_a_gpu_says_so(tmp_path: Path) -> None:
    reason = missing_resource(_impl(tmp_path / "repo"), _failed(GPU_LOG), Limits())
    assert reason is not None
    assert "needs a GPU" in reason and "--gpus all" in reason
    given = missing_resource(_impl(tmp_path / "repo"), _failed(GPU_LOG), Limits(gpus="1"))
    assert given is not None and "--gpus 1 given did not provide" in given


def test_a_golden_run_that_needs_a_model_names_it(tmp_path: Path) -> None:
    reason = missing_resource(_impl(tmp_path / "repo"), _failed(HUB_LOG), Limits())
    assert reason is not None
    assert "needs model 'meta-llama/Llama-2-7b-hf'" in reason
    assert "--hf-cache DIR" in reason and "no model cache was given" in reason


def test_a_message_in_the_published_log_counts_too(tmp_path: Path) -> None:
    run = _failed("", legacy="Test Failed: No CUDA GPUs are available\n")
    reason = missing_resource(_impl(tmp_path / "repo"), run, Limits())
    assert reason is not None and "needs a GPU" in reason


def test_lfs_pointers_in_the_repository_come_first(tmp_path: Path) -> None:
    impl = _impl(tmp_path / "repo")
    (impl.repo_dir / "data.pkl").write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 123456\n"
    )
    reason = missing_resource(impl, _failed(GPU_LOG), Limits())
    assert reason is not None and "Git LFS pointer" in reason and "data.pkl" in reason


def test_a_plain_failure_or_a_pass_is_no_missing_resource(tmp_path: Path) -> None:
    impl = _impl(tmp_path / "repo")
    assert missing_resource(impl, _failed("AssertionError: 4 != 5"), Limits()) is None
    passed = ImplementationRun(verdicts=[], image_id="x")
    assert missing_resource(impl, passed, Limits()) is None


def test_a_golden_proof_made_with_a_gpu_or_a_cache_holds_only_with_them(tmp_path: Path) -> None:
    from lmr_author.domain.task import Task
    from lmr_author.images.task_images import ImageRef
    from lmr_author.sandbox.golden import proof_key

    impl = _impl(tmp_path / "repo")
    task = Task(path=tmp_path, instance_id=1, folder_name="t", repo_folder_name="repo")
    task.implementations.append(impl)
    image = ImageRef(tag="t:1", image_id="sha256:x", built=False, workdir="/w")
    plain = proof_key(task, impl, image)
    assert proof_key(task, impl, image, Limits()) == plain
    # Every limit too (issue 39): a proof made with more time says nothing of less.
    assert proof_key(task, impl, image, Limits(timeout_s=5)) != plain
    assert proof_key(task, impl, image, Limits(gpus="all")) != plain
    assert proof_key(task, impl, image, Limits(hf_cache="/c")) != plain


def test_the_transformers_offline_message_and_an_import_error_are_named(tmp_path: Path) -> None:
    impl = _impl(tmp_path / "repo")
    offline = _failed(
        "OSError: We couldn't connect to 'https://huggingface.co' ... Checkout your internet "
        "connection or see how to run the library in offline mode at 'https://...'."
    )
    reason = missing_resource(impl, offline, Limits())
    assert reason is not None and "Hugging Face Hub" in reason and "--hf-cache" in reason
    broken = ImplementationRun(
        verdicts=[
            TestVerdict(
                test_file="unit_test/unit_test_1.py",
                verdict="error",
                reason="import error: ImportError: pyarrow requires NumPy 2.0 or newer",
                duration_s=0.1,
                log="",
                exit_code=1,
            )
        ],
        image_id="x",
    )
    reason = missing_resource(impl, broken, Limits())
    assert reason is not None and "cannot import" in reason and "pyarrow" in reason


@pytest.mark.parametrize(
    "command", [["eval", "bench", "-s", "subs"], ["validate", "bench", "--run"]]
)
def test_a_bad_gpu_request_on_the_command_line_is_a_usage_error(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from lmr_author.cli import main

    assert main([*command, "--gpus", "many"]) == 2
    err = capsys.readouterr().err
    assert "--gpus 'many' is not a GPU request" in err and "Traceback" not in err
