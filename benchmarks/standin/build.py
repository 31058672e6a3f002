"""Build the stand-in base image for the published tasks (see Dockerfile here).

    python benchmarks/standin/build.py [--tag lmr-standin:torch] [--torch-wheel FILE]

Downloads CPU torch and the scientific stack as wheels for Python 3.11 (pip's own
configuration: index, proxies, certificates) into a build context, then builds with the
Docker engine. Prints the image id. Without --torch-wheel, `torch` comes from pip's
configured index: point it at one that serves CPU builds (the default index serves the
CUDA build, gigabytes of nvidia-* wheels no test here can use).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STACK = ["numpy", "scipy", "pandas", "scikit-learn", "einops", "tqdm", "packaging"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tag", default="lmr-standin:torch")
    parser.add_argument("--torch-wheel", type=Path, help="a CPU torch wheel to use")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        context = Path(scratch)
        wheels = context / "wheels"
        wheels.mkdir()
        for name in ("Dockerfile", "pip-keep-torch"):
            shutil.copy(HERE / name, context / name)
        torch = [str(args.torch_wheel)] if args.torch_wheel else ["torch"]
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--only-binary=:all:",
                "--python-version",
                "3.11",
                "--platform",
                "manylinux2014_x86_64",
                "--platform",
                "manylinux_2_28_x86_64",
                "--platform",
                "manylinux_2_17_x86_64",
                "-d",
                str(wheels),
                *torch,
                *STACK,
            ],
            check=True,
        )
        import docker

        image, _ = docker.from_env().images.build(path=str(context), tag=args.tag, rm=True)
        print(args.tag, image.id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
