"""torch.autograd's flags and aliases: set_multithreading_enabled (as PyTorch's: set on construction,
restored on exit), is_view_replay_enabled, kineto_available, anomaly_mode, the overrides helpers."""

import sys

import pytest

import ember.autograd as torch


def test_set_multithreading_enabled_sets_now_and_restores_after_a_block():
    assert torch.autograd.is_multithreading_enabled()
    with torch.autograd.set_multithreading_enabled(False):
        assert not torch.autograd.is_multithreading_enabled()
    assert torch.autograd.is_multithreading_enabled()
    torch.autograd.set_multithreading_enabled(False)
    try:
        assert not torch.autograd.is_multithreading_enabled()
    finally:
        torch.autograd.set_multithreading_enabled(True)
    assert torch.autograd.is_multithreading_enabled()


def test_flags_and_aliases():
    assert torch.autograd.is_view_replay_enabled() is False and torch.autograd.kineto_available() is False
    assert sys.modules["ember.autograd.anomaly_mode"].detect_anomaly is torch.autograd.detect_anomaly
    x = torch.ones(2)
    assert torch.autograd.is_tensor_like(x) and not torch.autograd.has_torch_function([x])
    assert "is_tensor_like" not in torch.__all__  # PyTorch has it under torch.autograd only
    assert torch.autograd.ProfilerActivity is torch.profiler.ProfilerActivity


def test_variable_is_removed():
    with pytest.raises(RuntimeError, match=r"torch.autograd.variable\(...\) is deprecated, use torch.tensor"):
        torch.autograd.variable([1.0])
