"""`torch.backends` boilerplate runs, and availability answers are truthful."""

import ember.autograd as ea


def test_cudnn_flags_are_settable_and_cudnn_is_not_available():
    ea.backends.cudnn.benchmark = True
    ea.backends.cudnn.deterministic = True
    assert ea.backends.cudnn.benchmark is True
    assert ea.backends.cudnn.is_available() is False
    ea.backends.cudnn.benchmark = False


def test_mps_and_tf32_switches():
    assert ea.backends.mps.is_available() is False
    ea.backends.cuda.matmul.allow_tf32 = False
    assert ea.backends.cuda.matmul.allow_tf32 is False
