"""detect_anomaly: NaN in backward names the node and points at the forward line."""

from __future__ import annotations

import pytest

import ember.autograd as E

pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")  # numpy's log(0), 0 * inf


def test_nan_in_backward_names_the_node_and_the_forward_line():
    x = E.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning), E.detect_anomaly():
        y = (x * 0.0).log()  # the line the error must point at
        with pytest.raises(RuntimeError, match="Function 'LogBackward0' returned nan values in its 0th output.") \
                as info:
            (y * 0.0).sum().backward()
    notes = "".join(getattr(info.value, "__notes__", []))
    assert "Traceback of forward call that caused the error" in notes
    assert "(x * 0.0).log()" in notes


def test_without_anomaly_mode_nan_passes_silently():
    x = E.tensor([0.0], requires_grad=True)
    (x.log() * 0.0).sum().backward()
    assert x.grad.isnan().all()


def test_set_detect_anomaly_call_and_context():
    assert not E.is_anomaly_enabled()
    with E.set_detect_anomaly(True):
        assert E.is_anomaly_enabled()
    assert not E.is_anomaly_enabled()
    E.set_detect_anomaly(True)
    try:
        assert E.is_anomaly_enabled()
    finally:
        E.set_detect_anomaly(False)


def test_forward_trace_starts_at_the_main_scripts_first_frame(monkeypatch):
    # under a runner (`python -m ember.torch script.py`) the stack holds runpy's frames above the script's;
    # PyTorch's trace (`python script.py`) starts at the script
    import sys
    import types

    from ember.autograd import anomaly

    main = types.ModuleType("__main__")
    main.__file__ = __file__
    monkeypatch.setitem(sys.modules, "__main__", main)
    x = E.tensor([0.0, 1.0], requires_grad=True)
    with E.autograd.detect_anomaly():
        y = E.sqrt(x)
    trace = anomaly._forward_trace(y.grad_fn)
    assert trace.startswith(f'  File "{__file__}", line') and "y = E.sqrt(x)" in trace
    monkeypatch.setattr(main, "__file__", "/nowhere/else.py")  # no frame of the main file: the whole stack
    assert anomaly._forward_trace(y.grad_fn).count("File ") > trace.count("File ")
