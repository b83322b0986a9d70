"""Fixtures shared by the nn tests."""

import pytest

from ember.nn.functional import _layers


@pytest.fixture
def untracked_calls(monkeypatch):
    """How often `linear` computed at once (`linear_untracked`): [count]."""
    n = [0]
    real = _layers.linear_untracked

    def counted(*args):
        r = real(*args)
        n[0] += 1
        return r

    monkeypatch.setattr(_layers, "linear_untracked", counted)
    return n
