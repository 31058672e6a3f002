"""Builds behind a TLS-inspecting proxy: let pip in a task image trust the host's CA.

Many institutions (and our CI machine) reach the package index through a proxy that
re-signs TLS with a local certificate authority. The host trusts it through
``SSL_CERT_FILE``, ``PIP_CERT`` or ``REQUESTS_CA_BUNDLE``; an image does not, so pip in
a build fails with ``CERTIFICATE_VERIFY_FAILED``.

What we do (measured on this machine; BuildKit secret mounts are not available through
the docker SDK's legacy builder): before a task image is built, a tiny local image
``lmr-author/ca-base:<hash>`` is made FROM the task's base image, holding only a copy
of the host's bundle and ``ENV`` lines that point pip, requests and OpenSSL at it. The
task is then built FROM that image (the same mechanism as ``--base-image``). Why this
is no leak: a CA certificate is public data, not a secret; the layer exists only in
this machine's engine and is never pushed; and the task's own Dockerfile is never
changed, so a task never depends on this machine's CA anywhere else. Without any of
the variables nothing changes.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.images.from_lines import rewrite_from
from lmr_author.runtime import LABEL_KEY
from lmr_author.runtime.infra_error import InfraError

if TYPE_CHECKING:
    import docker

#: The host variables that name a CA bundle, in the order we look at them.
CA_VARIABLES = ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")
CA_IMAGE_REPOSITORY = "lmr-author/ca-base"
CA_PATH_IN_IMAGE = "/etc/lmr-author/host-ca.pem"
KIND_CA_BASE = "ca-base"


def host_ca_bundle(environ: Mapping[str, str] | None = None) -> Path | None:
    """The CA bundle the host names for TLS (first readable one), or None."""
    environ = os.environ if environ is None else environ
    for name in CA_VARIABLES:
        value = environ.get(name, "")
        if value and Path(value).is_file():
            return Path(value)
    return None


def ca_dockerfile(base: str) -> str:
    """The Dockerfile of the CA layer over ``base``."""
    variables = " ".join(f"{name}={CA_PATH_IN_IMAGE}" for name in CA_VARIABLES)
    return (
        f"FROM {base}\n"
        f"COPY host-ca.pem {CA_PATH_IN_IMAGE}\n"
        f"ENV {variables}\n"
        f'LABEL {LABEL_KEY}="{KIND_CA_BASE}"\n'
    )


def trusting_base(
    client: docker.DockerClient,
    base: str,
    *,
    bundle: Path | None = None,
    on_log: Callable[[str], None] | None = None,
) -> str:
    """A local image over ``base`` that trusts the host's CA (built once per content).

    Returns ``base`` itself when the host names no CA bundle or ``base`` is not in the
    engine (the build will say why it cannot pull it).
    """
    import docker.errors

    bundle = bundle or host_ca_bundle()
    if bundle is None:
        return base
    try:
        base_id = client.images.get(base).id or ""
    except docker.errors.ImageNotFound:
        return base
    except docker.errors.APIError as error:
        raise InfraError(f"the Docker engine failed: {error}") from None
    pem = bundle.read_bytes()
    dockerfile = ca_dockerfile(base)
    key = hashlib.sha256(b"\0".join([base_id.encode(), pem, dockerfile.encode()])).hexdigest()
    tag = f"{CA_IMAGE_REPOSITORY}:{key[:16]}"
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        for name, data in (("Dockerfile", dockerfile.encode()), ("host-ca.pem", pem)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    context.seek(0)
    try:
        for chunk in client.api.build(
            fileobj=context, custom_context=True, tag=tag, rm=True, pull=False, decode=True
        ):
            if "stream" in chunk and on_log is not None:
                for line in str(chunk["stream"]).splitlines():
                    on_log(line)
            if "error" in chunk:
                raise InfraError(
                    f"the CA layer over {base} did not build: {chunk['error']}",
                    hint="Check that the base image exists in the engine.",
                )
    except docker.errors.DockerException as error:
        raise InfraError(f"the CA layer over {base} did not build: {error}") from None
    return tag


def base_for_build(
    client: docker.DockerClient,
    dockerfile: Path,
    base_image: str | None,
    *,
    on_log: Callable[[str], None] | None = None,
) -> str | None:
    """The ``base_image`` a task build should use so that it trusts the host's CA.

    Unchanged when the host names no CA, or the Dockerfile has several distinct bases
    and no ``base_image`` replaces them all.
    """
    if host_ca_bundle() is None:
        return base_image
    try:
        text = dockerfile.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return base_image  # plan_build reports it
    _, bases = rewrite_from(text, base_image)
    if len(bases) != 1:
        return base_image
    return trusting_base(client, bases[0], on_log=on_log)
