"""The host's CA for builds behind a TLS-inspecting proxy: found, never in a task file."""

from __future__ import annotations

from pathlib import Path

from lmr_author.authoring.dockerfile import render_task_dockerfile
from lmr_author.images.certificates import CA_PATH_IN_IMAGE, ca_dockerfile, host_ca_bundle


def test_bundle_is_taken_from_the_first_readable_variable(tmp_path: Path) -> None:
    bundle = tmp_path / "ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    env = {"PIP_CERT": str(tmp_path / "missing.pem"), "SSL_CERT_FILE": str(bundle)}
    assert host_ca_bundle(env) == bundle
    assert host_ca_bundle({}) is None


def test_ca_layer_points_pip_requests_and_openssl_at_the_bundle() -> None:
    text = ca_dockerfile("python:3.11-slim")
    assert text.startswith("FROM python:3.11-slim\n")
    for name in ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"):
        assert f"{name}={CA_PATH_IN_IMAGE}" in text
    # The task's own Dockerfile never names the host's CA.
    assert "ca.pem" not in render_task_dockerfile("repo") and "CERT" not in render_task_dockerfile(
        "repo"
    )
