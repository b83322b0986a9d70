"""The jit tests inspect a plan's fused replay right after its capture: they compile its kernels at the first
replay (`config.background_compile` off); test_background.py tests the background path itself."""

import pytest

from ember.jit import config


@pytest.fixture(autouse=True)
def _fused_plans_at_once(monkeypatch):
    monkeypatch.setattr(config, "background_compile", False)
