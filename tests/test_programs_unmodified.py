"""Complete PyTorch programs in tests/programs/, run unmodified on ember through `python -m ember.torch`
(their `import torch` resolves to ember.torch), each in a fresh interpreter; the same files run under
PyTorch itself in the torch session. Each program checks its own training (losses fall, shapes hold)
and prints OK."""

from __future__ import annotations

import importlib
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROGRAMS = sorted(p.stem for p in (ROOT / "tests" / "programs").glob("*.py"))


def _env() -> dict:
    # the repository's sources first, as an installed checkout would give them
    srcs = [str(p) for p in sorted((ROOT / "packages").glob("*/src"))]
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(srcs + [env["PYTHONPATH"]] if env.get("PYTHONPATH") else srcs)
    return env


def _needs(name: str) -> None:
    if name == "reinforce":
        try:
            dist = importlib.import_module("ember.torch.distributions")
        except ImportError:
            pytest.skip("ember.torch.distributions is not available")
        if not hasattr(dist, "Categorical"):
            pytest.skip("ember.torch.distributions has no Categorical")


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=_env(), cwd=ROOT)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_runs_unmodified_on_ember(name):
    _needs(name)
    r = _run([sys.executable, "-m", "ember.torch", str(ROOT / "tests" / "programs" / f"{name}.py")])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    assert r.stdout.rstrip().endswith("OK"), r.stdout[-3000:]


@pytest.mark.torch
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_runs_on_pytorch(name):
    pytest.importorskip("torch")
    r = _run([sys.executable, str(ROOT / "tests" / "programs" / f"{name}.py")])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    assert r.stdout.rstrip().endswith("OK"), r.stdout[-3000:]
