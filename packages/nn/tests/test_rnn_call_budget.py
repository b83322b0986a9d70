"""Call budgets of a small recurrent model's step (an `LSTMCell` step, an `nn.LSTM` layer): the Python and C calls
of one call, counted, never timed (docs/benchmarks.md, "Stop 44"), so a change that lengthens the path of a cell
that runs once per time step fails here whatever the machine's load. Lower a budget when the path gets cheaper;
raise one only with a reason in the commit message."""

import numpy as np
import pytest

import ember.autograd as E
import ember.nn as nn
from ember.core import dispatch, storage
from ember.core.testing import count_calls

# (Python calls, C calls), a little above what was measured when each was set (in the comment; before stop 44:
# cell forward 138/222, forward and backward 355/692, under no_grad 95/93)
CELL_FORWARD = (120, 210)      # 114/202
CELL_BACKWARD = (330, 680)     # 319/668: forward, then (h.sum() + c.sum()).backward()
CELL_NO_GRAD = (75, 80)        # 71/73
# a 2-layer GRU(16, 32) / LSTM(16, 32) over 20 steps of batch 8, forward and out.sum().backward() (stop 45: the GRU
# recorded its steps, 7247/13485, before each layer direction became one node over `gru_layer`)
GRU_LAYERS = (800, 880)        # 740/804
LSTM_LAYERS = (980, 1070)      # 903/986


@pytest.fixture
def cell_and_inputs(monkeypatch):
    monkeypatch.setattr(storage, "only_cpu", True)  # the dispatcher's budget without its device scan
    # the budgets of a process that never saw a Tensor subclass or a mode: after one (an earlier test's), every op
    # asks the `__torch_function__` check first
    monkeypatch.setattr(dispatch, "_protocol", None)
    monkeypatch.setattr(dispatch, "_composite_protocol", None)
    E.manual_seed(0)
    rng = np.random.default_rng(0)
    cell = nn.LSTMCell(64, 128)
    x, h, c = (E.from_numpy(rng.standard_normal(s, dtype=np.float32)) for s in ((32, 64), (32, 128), (32, 128)))
    return cell, x, h, c


def _check(what, got, budget):
    assert got[0] <= budget[0] and got[1] <= budget[1], (
        f"{what}: {got[0]} Python calls and {got[1]} C calls; the budget is {budget[0]} and {budget[1]}")


def test_lstm_cell_step_stays_within_its_call_budget(cell_and_inputs):
    cell, x, h, c = cell_and_inputs
    _check("LSTMCell forward", count_calls(lambda: cell(x, (h, c))), CELL_FORWARD)


def test_lstm_cell_step_and_backward_stay_within_their_call_budget(cell_and_inputs):
    cell, x, h, c = cell_and_inputs

    def step():
        hy, cy = cell(x, (h, c))
        (hy.sum() + cy.sum()).backward()
    _check("LSTMCell forward and backward", count_calls(step), CELL_BACKWARD)


def test_lstm_cell_step_without_grad_stays_within_its_call_budget(cell_and_inputs):
    cell, x, h, c = cell_and_inputs
    with E.no_grad():
        _check("LSTMCell forward under no_grad", count_calls(lambda: cell(x, (h, c))), CELL_NO_GRAD)


@pytest.mark.parametrize("mode,budget", [("GRU", GRU_LAYERS), ("LSTM", LSTM_LAYERS)])
def test_recurrent_layers_stay_within_their_call_budget(monkeypatch, mode, budget):
    """Each layer direction is one node whatever the sequence's length: the budget does not grow with the steps."""
    monkeypatch.setattr(storage, "only_cpu", True)
    monkeypatch.setattr(dispatch, "_protocol", None)
    monkeypatch.setattr(dispatch, "_composite_protocol", None)
    E.manual_seed(0)
    m = getattr(nn, mode)(16, 32, 2)
    x = E.from_numpy(np.random.default_rng(0).standard_normal((20, 8, 16), dtype=np.float32)).requires_grad_()

    def step():
        out, _ = m(x)
        out.sum().backward()
    step()
    _check(f"{mode} layers forward and backward", count_calls(step), budget)
