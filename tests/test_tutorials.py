"""Every script in docs/tutorials runs to completion (in its short EMBER_TUTORIAL_QUICK=1 form)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("*.py"))


@pytest.mark.parametrize("script", TUTORIALS, ids=[p.name for p in TUTORIALS])
def test_tutorial_runs(script):
    pytest.importorskip("sklearn")
    paths = [str(ROOT / "packages" / p / "src") for p in ("core", "autograd", "nn", "data")]
    env = {**os.environ, "EMBER_TUTORIAL_QUICK": "1",
           "PYTHONPATH": os.pathsep.join(paths + [os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
