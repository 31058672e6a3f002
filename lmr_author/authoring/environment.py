"""The environment step of new-task: which Python packages the task's image needs.

A task's tests import the goal module, so its image needs what that module imports,
transitively within the repository. We read two kinds of evidence without executing
anything: the repository's own dependency files, found by name wherever a repository
keeps them at its top (``requirements.txt`` and any ``*requirements*.txt`` such as
``paper2code_requirements.txt``, ``requirements/*.txt`` and the files they include with
``-r``; ``pyproject.toml`` for PEP 621 and Poetry, read with tomllib; ``setup.py``
parsed with ``ast``; ``setup.cfg`` with configparser; a conda ``environment.yml`` or any
``*env*.yml`` with a ``dependencies`` list, with PyYAML; every requirement line parsed
with packaging), and the ``import`` statements of the goal modules. The proposal is
what the goal modules import, versioned as the repository declares it, each line citing
the file it came from; declared packages the goal never imports are listed apart (a
repository may list torch when the goal function needs only NumPy, and that is
gigabytes).
"""

from __future__ import annotations

import ast
import configparser
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement as _PackagingRequirement
from packaging.utils import canonicalize_name

from lmr_author.authoring.spec import TaskSpec
from lmr_author.util.python_parse import parse_python

#: Import names whose distribution has another name, for packages not installed here.
IMPORT_TO_DISTRIBUTION: dict[str, str] = {
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "cv2": "opencv-python",
    "PIL": "Pillow",
    "yaml": "PyYAML",
    "bs4": "beautifulsoup4",
    "Crypto": "pycryptodome",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "google.protobuf": "protobuf",
    "attr": "attrs",
    "jwt": "PyJWT",
    "serial": "pyserial",
    "Levenshtein": "python-Levenshtein",
    "sentencepiece": "sentencepiece",
    "faiss": "faiss-cpu",
    "torch_geometric": "torch-geometric",
    "tree_sitter": "tree-sitter",
    "OpenSSL": "pyOpenSSL",
    "docx": "python-docx",
    "magic": "python-magic",
    "fitz": "PyMuPDF",
    "Bio": "biopython",
    "lightgbm": "lightgbm",
    "umap": "umap-learn",
    "hydra": "hydra-core",
    "omegaconf": "omegaconf",
    "wandb": "wandb",
    "git": "GitPython",
    "igraph": "python-igraph",
    "spacy": "spacy",
}
#: conda package names whose PyPI name differs (environment.yml).
CONDA_TO_PYPI: dict[str, str] = {
    "pytorch": "torch",
    "pytorch-cpu": "torch",
    "py-opencv": "opencv-python",
    "opencv": "opencv-python",
    "pyyaml": "PyYAML",
    "pillow": "Pillow",
}
#: conda packages that are no Python distribution (toolchains, the interpreter).
_CONDA_SKIP = frozenset(
    {"python", "pip", "cudatoolkit", "cudnn", "mkl", "blas", "libblas", "cuda", "setuptools"}
)
#: Installed with the interpreter in every image: never proposed.
_ALWAYS_THERE = frozenset({"pip", "setuptools", "wheel"})


@dataclass(frozen=True)
class Requirement:
    """One line of the task's requirements.txt and why it is there."""

    name: str  # canonical distribution name
    line: str  # the requirements.txt line, e.g. "pandas>=2.0"
    source: str  # e.g. "requirements.txt line 3", "import in model.py line 4"


@dataclass(frozen=True)
class EnvironmentProposal:
    """What the goal modules need, and what the repository declares besides."""

    requirements: list[Requirement]
    #: Declared by the repository but never imported by the goal modules.
    declared_unused: list[Requirement] = field(default_factory=list)
    #: Imports that are neither stdlib, nor in the repository, nor known distributions.
    unknown_imports: list[str] = field(default_factory=list)
    #: The repository's dependency files that declare requirements (relative paths).
    files: list[str] = field(default_factory=list)

    def requirements_txt(self) -> str:
        """The task's requirements.txt: one line per requirement, sources as comments."""
        lines = ["# Proposed by lmr-author from the repository; edit freely."]
        lines += [f"{req.line}  # {req.source}" for req in self.requirements]
        return "\n".join(lines) + "\n"


def propose_environment(repo_dir: Path, goal_files: Sequence[str]) -> EnvironmentProposal:
    """Propose the task's requirements from the repository's files and the goals' imports."""
    by_file = declared_by_file(repo_dir)
    declared = [req for _, found in by_file for req in found]
    by_name: dict[str, Requirement] = {}
    for req in declared:
        by_name.setdefault(req.name, req)
    imports = goal_imports(repo_dir, goal_files)
    proposed: dict[str, Requirement] = {}
    unknown: list[str] = []
    installed = _installed_distributions()
    for module, where in imports.items():
        dist = distribution_for_import(module, installed)
        if dist is None:
            unknown.append(module)
            continue
        name = canonicalize_name(dist)
        if name in _ALWAYS_THERE or name in proposed:
            continue
        if name in by_name:
            kept = by_name[name]
            proposed[name] = Requirement(name, kept.line, f"{kept.source}; import in {where}")
        else:
            proposed[name] = Requirement(name, dist, f"import in {where}")
    unused = [req for name, req in by_name.items() if name not in proposed]
    return EnvironmentProposal(
        requirements=sorted(proposed.values(), key=lambda r: r.name),
        declared_unused=unused,
        unknown_imports=sorted(set(unknown)),
        files=[path.relative_to(repo_dir).as_posix() for path, _ in by_file],
    )


def distribution_for_import(
    module: str, installed: dict[str, list[str]] | None = None
) -> str | None:
    """The distribution that provides top-level import ``module`` (None: unknown)."""
    if module in IMPORT_TO_DISTRIBUTION:
        return IMPORT_TO_DISTRIBUTION[module]
    installed = _installed_distributions() if installed is None else installed
    if module in installed:
        return installed[module][0]
    if re.fullmatch(r"[A-Za-z0-9_]+", module) and not module.startswith("_"):
        return module.replace("_", "-")  # most distributions are named as they import
    return None


def _installed_distributions() -> dict[str, list[str]]:
    return {k: list(v) for k, v in importlib.metadata.packages_distributions().items()}


# --- imports of the goal modules --------------------------------------------------


def goal_imports(repo_dir: Path, goal_files: Sequence[str]) -> dict[str, str]:
    """Third-party top-level imports reached from the goal files, with where each is.

    Imports of the repository's own modules are followed (transitively); stdlib
    modules are left out (`sys.stdlib_module_names`).
    """
    found: dict[str, str] = {}
    seen: set[Path] = set()
    queue = [repo_dir / goal for goal in goal_files]
    # Importing pkg/sub/goal.py runs pkg/__init__.py and pkg/sub/__init__.py first.
    for goal in goal_files:
        parts = Path(goal).parts[:-1]
        queue += [
            repo_dir.joinpath(*parts[:i], "__init__.py")
            for i in range(1, len(parts) + 1)
            if repo_dir.joinpath(*parts[:i], "__init__.py").is_file()
        ]
    while queue:
        path = queue.pop(0).resolve()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        try:
            tree = parse_python(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError):
            continue
        rel = path.relative_to(repo_dir.resolve()).as_posix()
        for name, level, lineno in _imports(tree):
            local = _local_module(repo_dir, path.parent, name, level)
            if local is not None:
                queue.extend(local)
                continue
            if level:
                continue  # a relative import we could not find: not third-party
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top == "__future__":
                continue
            key = "google.protobuf" if name.startswith("google.protobuf") else top
            found.setdefault(key, f"{rel} line {lineno}")
    return found


_OPTIONAL = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _optional_imports(tree: ast.AST) -> set[int]:
    """Nodes inside ``try: import x`` / ``except ImportError:``: optional dependencies
    (a backend used when installed), never proposed, never followed."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = set()
        for handler in node.handlers:
            kinds = handler.type
            names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
            caught |= {n.id if isinstance(n, ast.Name) else "" for n in names if n is not None}
            if kinds is None:
                caught.add("BaseException")
        if caught & _OPTIONAL:
            guarded |= {id(inner) for part in node.body for inner in ast.walk(part)}
    return guarded


def _imports(tree: ast.AST) -> Iterable[tuple[str, int, int]]:
    optional = _optional_imports(tree)
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, 0, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            yield base, node.level, node.lineno
            for alias in node.names:  # `from pkg import submodule`
                yield (f"{base}.{alias.name}" if base else alias.name), node.level, node.lineno


def _local_module(repo_dir: Path, here: Path, name: str, level: int) -> list[Path] | None:
    """The repository files an import refers to, or None when it is not the repo's."""
    roots = [here] if level else [repo_dir, here]
    if level > 1:
        roots = [here.parents[level - 2]] if len(here.parents) >= level - 1 else []
    parts = [p for p in name.split(".") if p]
    for root in roots:
        if not parts:
            init = root / "__init__.py"
            return [init] if init.is_file() else []
        base = root.joinpath(*parts)
        files = [base.with_suffix(".py"), base / "__init__.py"]
        hits = [f for f in files if f.is_file()]
        if hits:
            # a package's __init__ on the way runs too
            return hits + [
                root.joinpath(*parts[:i], "__init__.py")
                for i in range(1, len(parts))
                if root.joinpath(*parts[:i], "__init__.py").is_file()
            ]
        if (root / parts[0]).is_dir() and level == 0 and len(parts) > 1:
            return []  # a repo package attribute (`from pkg import name`)
    return None


# --- the repository's dependency files ---------------------------------------------


#: A requirements file's name: ``requirements.txt``, ``requirements-dev.txt``,
#: ``paper2code_requirements.txt``, ``reqs.txt``, ``deps.txt``.
_REQUIREMENTS_NAME = re.compile(r"(^|[^a-z])(requirements?|reqs?|deps|dependencies)([^a-z]|$)")
_REQUIREMENTS_FOLDERS = frozenset({"requirements", "reqs", "deps"})
_CONDA_NAME = re.compile(r"env|conda")
_MAX_INCLUDES = 20  # -r files followed from one file, in all


def dependency_files(repo_dir: Path) -> list[Path]:
    """The repository's dependency files, the most authoritative first: requirements.txt,
    the other requirements files (top level, then ``requirements/``), pyproject.toml,
    setup.py, setup.cfg, then conda environment files. Files included with ``-r`` are
    read with the file that includes them."""
    top = _regular_files(repo_dir)
    requirements = [p for p in top if _is_requirements_name(p.name)]
    for folder in _regular_dirs(repo_dir):
        if folder.name.lower() in _REQUIREMENTS_FOLDERS:
            requirements += [p for p in _regular_files(folder) if p.suffix in (".txt", ".in")]
    # requirements.txt first, then the closest names: a requirement both declare is
    # cited from the canonical file, never from a "requirements copy.txt" beside it.
    requirements.sort(
        key=lambda path: (
            path.name != "requirements.txt",
            path.parent != repo_dir,
            "requirements" not in path.name.lower(),
            len(path.name),
            path.name,
        )
    )
    builds = [repo_dir / n for n in ("pyproject.toml", "setup.py", "setup.cfg")]
    conda = [
        p
        for p in top
        if p.suffix.lower() in (".yml", ".yaml") and _CONDA_NAME.search(p.stem.lower())
    ]
    conda.sort(key=lambda path: (not path.stem.lower().startswith("environment"), path.name))
    return requirements + [p for p in builds if p in top] + conda


def _is_requirements_name(name: str) -> bool:
    lowered = name.lower()
    return lowered.endswith((".txt", ".in")) and bool(_REQUIREMENTS_NAME.search(lowered[:-4]))


def _regular_files(folder: Path) -> list[Path]:
    """The regular files of ``folder`` (no link: it may lead out of the repository)."""
    try:
        return sorted(p for p in folder.iterdir() if not p.is_symlink() and p.is_file())
    except OSError:
        return []


def _regular_dirs(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if not p.is_symlink() and p.is_dir())
    except OSError:
        return []


def declared_requirements(repo_dir: Path) -> list[Requirement]:
    """Every requirement the repository's dependency files declare (`dependency_files`),
    in file order, each citing its file."""
    return [req for _, found in declared_by_file(repo_dir) for req in found]


def declared_by_file(repo_dir: Path) -> list[tuple[Path, list[Requirement]]]:
    """The requirements of each of the repository's dependency files that declares any."""
    by_file: list[tuple[Path, list[Requirement]]] = []
    included: set[Path] = set()
    for path in dependency_files(repo_dir):
        name = path.name.lower()
        if name == "pyproject.toml":
            found = _from_pyproject(path)
        elif name == "setup.py":
            found = _from_setup_py(path)
        elif name == "setup.cfg":
            found = _from_setup_cfg(path)
        elif path.suffix.lower() in (".yml", ".yaml"):
            found = _from_environment_yml(path)
        elif path.resolve() not in included:
            found = _from_requirements_txt(path, repo_dir, included)
        else:
            found = []  # read already, included by another with -r
        if found:
            by_file.append((path, found))
    return by_file


def _requirement(text: str, source: str) -> Requirement | None:
    # A comment, and pip's options after the requirement (--hash=..., --index-url ...).
    text = text.split(" #", 1)[0].split(" --", 1)[0].strip()
    if not text or text.startswith(("#", "-", "git+", "http://", "https://", ".")):
        return None
    try:
        parsed = _PackagingRequirement(text)
    except InvalidRequirement:
        return None
    return Requirement(canonicalize_name(parsed.name), str(parsed), source)


_INCLUDE = re.compile(r"^\s*(?:-r|--requirement)(?:\s+|=)(\S+)")


def _from_requirements_txt(path: Path, repo_dir: Path, included: set[Path]) -> list[Requirement]:
    """The requirements of a pip requirements file, and of the files it includes with
    ``-r`` (within the repository, each once)."""
    included.add(path.resolve())
    found = []
    rel = path.relative_to(repo_dir).as_posix()
    for number, line in enumerate(_read(path).splitlines(), start=1):
        include = _INCLUDE.match(line)
        if include:
            target = (path.parent / include.group(1)).resolve()
            inside = target.is_relative_to(repo_dir.resolve()) and target.is_file()
            if inside and target not in included and len(included) <= _MAX_INCLUDES:
                found += _from_requirements_txt(
                    repo_dir / target.relative_to(repo_dir.resolve()), repo_dir, included
                )
            continue
        req = _requirement(line, f"{rel} line {number}")
        if req is not None:
            found.append(req)
    return found


def _from_pyproject(path: Path) -> list[Requirement]:
    try:
        data = tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError:
        return []
    found = []
    project = data.get("project", {})
    for text in project.get("dependencies", []) if isinstance(project, dict) else []:
        req = _requirement(str(text), "pyproject.toml [project.dependencies]")
        if req is not None:
            found.append(req)
    poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {})
    for name, constraint in poetry.items() if isinstance(poetry, dict) else []:
        if name.lower() == "python":
            continue
        version = constraint if isinstance(constraint, str) else ""
        req = _requirement(
            name + _poetry_constraint(version), "pyproject.toml [tool.poetry.dependencies]"
        )
        if req is not None:
            found.append(req)
    return found


def _poetry_constraint(version: str) -> str:
    """Poetry's ``^1.2`` / ``~1.2`` / ``*`` as a PEP 440 lower bound (close enough)."""
    version = version.strip()
    if not version or version == "*":
        return ""
    if version[0] in "^~":
        return ">=" + version[1:].lstrip("=")
    if version[0].isdigit():
        return "==" + version
    return version


def _from_setup_py(path: Path) -> list[Requirement]:
    """``install_requires`` of ``setup(...)``, read with ast (setup.py never runs)."""
    try:
        tree = parse_python(_read(path))
    except SyntaxError:
        return []
    lists: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            values = _string_list(node.value)
            if isinstance(target, ast.Name) and values is not None:
                lists[target.id] = values
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg != "install_requires":
                continue
            values = _string_list(keyword.value)
            if values is None and isinstance(keyword.value, ast.Name):
                values = lists.get(keyword.value.id)
            for text in values or []:
                req = _requirement(text, f"setup.py install_requires (line {keyword.lineno})")
                if req is not None:
                    found.append(req)
    return found


def _string_list(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.List | ast.Tuple):
        items = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        return [str(item) for item in items if isinstance(item, str)]
    return None


def _from_setup_cfg(path: Path) -> list[Requirement]:
    parser = configparser.ConfigParser()
    try:
        parser.read_string(_read(path))
    except configparser.Error:
        return []
    raw = parser.get("options", "install_requires", fallback="")
    found = []
    for line in raw.splitlines():
        req = _requirement(line, "setup.cfg [options] install_requires")
        if req is not None:
            found.append(req)
    return found


def _from_environment_yml(path: Path) -> list[Requirement]:
    import yaml  # type: ignore[import-untyped]

    try:
        data = yaml.safe_load(_read(path))
    except yaml.YAMLError:
        return []
    deps = data.get("dependencies", []) if isinstance(data, dict) else []
    found = []
    for item in deps if isinstance(deps, list) else []:
        if isinstance(item, dict):
            for text in item.get("pip", []) or []:
                req = _requirement(str(text), f"{path.name} (pip)")
                if req is not None:
                    found.append(req)
            continue
        text = str(item).split("::")[-1]  # channel::package
        name, _, version = text.partition("=")
        name = name.strip()
        if name.lower() in _CONDA_SKIP or not name:
            continue
        version = version.lstrip("=").split("=")[0]  # conda's name=1.2=build
        pypi = CONDA_TO_PYPI.get(name.lower(), name)
        req = _requirement(
            pypi + (f"=={version}" if version and "*" not in version else ""),
            f"{path.name} (conda {name})",
        )
        if req is not None:
            found.append(req)
    return found


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def propose_for_draft(spec: TaskSpec) -> EnvironmentProposal | None:
    """Fill an empty requirements.txt of the draft from the proposal (None: kept as is)."""
    from lmr_author.authoring.source import resolve_source

    if spec.requirements.strip() or spec.dockerfile.strip():
        return None
    if spec.repo_path and Path(spec.repo_path).is_dir():
        repo = Path(spec.repo_path)
    else:
        repo = resolve_source(spec.source, spec.ref).path
        spec.repo_path = str(repo)
    proposal = propose_environment(repo, [goal.goal_file for goal in spec.goals])
    spec.requirements = proposal.requirements_txt()
    return proposal
