"""Recurrent layers `RNN`, `LSTM`, `GRU` and cells `RNNCell`, `LSTMCell`, `GRUCell`.

LSTM and GRU steps use ember-core's fused cell ops (gates, nonlinearities and state update in one
kernel) where the device has them, else compositions of `linear`, `sigmoid` and `tanh`. A layer
projects the whole input sequence through W_ih in one matmul, then steps through time with W_hh.
An LSTM layer direction without `proj_size` or packed input is one node (`_LSTMLayer`) over
ember-core's `lstm_layer` op, which runs those steps in compiled code on the CPU; a GRU layer direction
likewise (`gru_layer`) where the device has that op.
"""


from __future__ import annotations

import math
import numbers
import warnings

from ember import autograd as ea
from ember.core import Tensor
from ember.core.dispatch import get_op, node_name
from ember.core.ops._util import internally, warn_once
from ember.autograd.graph import Node
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter
from ember.nn.utils.rnn import PackedSequence, _unpack_sorted

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


_LAYER_DTYPES = (ea.float32, ea.float64)  # those the CPU lstm_layer and gru_layer compile for


def _fused(name: str, t: Tensor):
    """ember-core's fused op `name` where it has a kernel for `t`'s device, else None (compose)."""
    op = get_op(name)
    return op if t._storage.device.type in op.kernels else None


class _TimeSteps(ea.Function):
    """The time steps of a (L, ...) sequence as L tensors (views), whose backward stacks the steps'
    gradients once, as PyTorch's UnbindBackward does: indexing `x[t]` per step would give each
    step a backward that zero-fills a gradient of the whole sequence, and the engine would sum L
    of them (L full-size fills and adds per layer)."""

    _internal = True

    @staticmethod
    def forward(ctx, x):
        return x.unbind(0)

    @staticmethod
    def backward(ctx, *grads):
        return ea.stack(grads, 0)


class _LSTMLayer(ea.Function):
    """One LSTM layer direction as one node, its input projection included (PyTorch's CPU LSTM
    runs `mkldnn_rnn_layer`): ember-core's `lstm_layer` runs each step as one GEMM and, on the
    CPU, one compiled pass writing its results in place, and `lstm_layer_backward` walks the steps
    back and takes each weight's gradient as one GEMM over all of them, where recording the steps
    would give the engine two nodes per step and L per-step weight gradients to sum.
    x: (L, N, H_in); h0, c0: (N, H)."""

    @staticmethod
    def forward(ctx, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
        hs, cs, ws = get_op("lstm_layer")(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse)
        steps = x.shape[0]
        ctx.reverse = reverse
        ctx.save_for_backward(x, w_ih, w_hh, b_ih, b_hh, h0, c0, hs, cs, ws)
        # views of the saved buffers (hs holds h0 beside the outputs, for W_hh's gradient), as
        # tensors of their own: an in-place change of one fails the saved buffer's version check
        outs = (hs[:steps] if reverse else hs[1:], hs[0 if reverse else steps], cs[0 if reverse else steps - 1])
        return tuple(Tensor._make(o._storage, o._offset, o._shape, o._strides, o._dtype) for o in outs)

    @staticmethod
    def backward(ctx, g_out, g_hn, g_cn):
        x, w_ih, w_hh, b_ih, b_hh, h0, c0, hs, cs, ws = ctx.saved_tensors
        need = ctx.needs_input_grad
        if ea.is_grad_enabled():  # create_graph: the states are saved without their history
            return _lstm_layer_replayed(ctx, (x, w_ih, w_hh, b_ih, b_hh, h0, c0), (g_out, g_hn, g_cn))
        mask = (need[0], need[1] or need[2], need[3] or need[4])
        g_x, g_wih, g_whh, g_b, g_h0, g_c0 = get_op("lstm_layer_backward")(
            g_out, g_hn, g_cn, x, w_ih, w_hh, c0, hs, cs, ws, ctx.reverse, mask)
        g_bhh = (g_b.clone() if need[3] else g_b) if need[4] else None  # each bias its own gradient tensor
        return (g_x, g_wih if need[1] else None, g_whh if need[2] else None, g_b if need[3] else None, g_bhh,
                g_h0, g_c0, None)


class _CppNamedNode:
    """What a layer's node named for one of PyTorch's C++ nodes shares: callable, printed without a module, its
    formulas run with `__torch_function__` off (each class sets `__module__ = "builtins"` in its own body)."""

    _user_code = False
    __call__ = Node._call

    def __repr__(self) -> str:
        return f"<{type(self).__qualname__} object at {id(self):#x}>"


class MkldnnRnnLayerBackward0(_CppNamedNode, _LSTMLayer._backward_cls):
    """The node of one LSTM layer direction under PyTorch's name: its CPU LSTM records `mkldnn_rnn_layer`."""

    __module__ = "builtins"  # as every ember node named for one of PyTorch's C++ nodes


_LSTMLayer._backward_cls = MkldnnRnnLayerBackward0


def _recorded_grads(ctx, inputs: tuple, outs: tuple, grads: tuple) -> tuple:
    """A replayed layer's gradients: those of the inputs it needs from the recorded `outs`, with a graph (None for
    the others and for the layer's trailing non-tensor argument)."""
    wanted = [i for i, t in enumerate(inputs) if ctx.needs_input_grad[i] and t is not None and t.requires_grad]
    got = ea.grad(outs, [inputs[i] for i in wanted], grads, create_graph=True, allow_unused=True)
    res: list = [None] * (len(inputs) + 1)
    for i, g in zip(wanted, got):
        res[i] = g
    return tuple(res)


def _lstm_layer_replayed(ctx, inputs: tuple, grads: tuple) -> tuple:
    """_LSTMLayer's gradients under `create_graph`: the layer runs again step by step, recorded,
    and is differentiated with a graph, so higher derivatives see the states' dependence on the
    inputs."""
    x, w_ih, w_hh, b_ih, b_hh, h0, c0 = inputs
    with ea.enable_grad():
        gis = _TimeSteps.apply(F.linear(x, w_ih, b_ih))
        h, c = h0, c0
        hs = [None] * x.shape[0]
        for t in (range(x.shape[0] - 1, -1, -1) if ctx.reverse else range(x.shape[0])):
            h, c = _lstm_step(gis[t], h, c, w_hh, b_hh)
            hs[t] = h
        outs = (ea.stack(hs, 0), h, c)
    return _recorded_grads(ctx, inputs, outs, grads)


class _GRULayer(ea.Function):
    """One GRU layer direction as one node, as `_LSTMLayer`: ember-core's `gru_layer` runs the steps in compiled
    code and `gru_layer_backward` takes each weight's and bias's gradient once over all of them, where recording the
    steps gave the engine three nodes per step and L per-step weight gradients and bias sums to add up. PyTorch's
    CPU GRU records its steps' ops, whose last, the output's, is a stack: the node bears that name.
    x: (L, N, H_in); h0: (N, H)."""

    @staticmethod
    def forward(ctx, x, w_ih, w_hh, b_ih, b_hh, h0, reverse):
        hs, ws = get_op("gru_layer")(x, w_ih, w_hh, b_ih, b_hh, h0, reverse)
        steps = x.shape[0]
        ctx.reverse = reverse
        ctx.save_for_backward(x, w_ih, w_hh, b_ih, b_hh, h0, ws)  # not hs: the outputs may change in place
        outs = (hs[:steps] if reverse else hs[1:], hs[0 if reverse else steps])
        return tuple(Tensor._make(o._storage, o._offset, o._shape, o._strides, o._dtype) for o in outs)

    @staticmethod
    def backward(ctx, g_out, g_hn):
        x, w_ih, w_hh, b_ih, b_hh, h0, ws = ctx.saved_tensors
        need = ctx.needs_input_grad
        if ea.is_grad_enabled():  # create_graph: the steps again, recorded (as _lstm_layer_replayed)
            return _gru_layer_replayed(ctx, (x, w_ih, w_hh, b_ih, b_hh, h0), (g_out, g_hn))
        mask = (need[0], need[1] or need[2], need[3] or need[4])
        g_x, g_wih, g_whh, g_bih, g_bhh, g_h0 = get_op("gru_layer_backward")(
            g_out, g_hn, x, w_ih, w_hh, ws, ctx.reverse, mask)
        return (g_x, g_wih if need[1] else None, g_whh if need[2] else None, g_bih if need[3] else None,
                g_bhh if need[4] else None, g_h0, None)


class StackBackward0(_CppNamedNode, _GRULayer._backward_cls):
    """A GRU layer direction's node under the name of PyTorch's last recorded op of it (its output's `stack`)."""

    __module__ = "builtins"  # as every ember node named for one of PyTorch's C++ nodes


_GRULayer._backward_cls = StackBackward0


def _gru_layer_replayed(ctx, inputs: tuple, grads: tuple) -> tuple:
    """_GRULayer's gradients under `create_graph`, from its steps run again and recorded."""
    x, w_ih, w_hh, b_ih, b_hh, h0 = inputs
    with ea.enable_grad():
        gis = _TimeSteps.apply(F.linear(x, w_ih, b_ih))
        h = h0
        hs = [None] * x.shape[0]
        for t in (range(x.shape[0] - 1, -1, -1) if ctx.reverse else range(x.shape[0])):
            h = _gru_step(gis[t], h, w_hh, b_hh)
            hs[t] = h
        outs = (ea.stack(hs, 0), h)
    return _recorded_grads(ctx, inputs, outs, grads)


def _hidden_product(h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """h @ w_hh^T, the bias left to the fused cell; a hidden state of another dtype is refused in the words of
    PyTorch's cells, which compute linear(hx, w_hh, b_hh) (addmm's "mat1 and mat2" when there is a bias)."""
    if b_hh is not None and h._dtype is not w_hh._dtype:
        return F.linear(h, w_hh, b_hh)  # raises PyTorch's error
    return F.linear(h, w_hh)


def _lstm_step(gi: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    hg = _hidden_product(h, w_hh, b_hh)
    cell = _fused("lstm_cell", h)
    if cell is not None:
        hy, cy, _ = cell(gi, hg, c, None, b_hh)
        return hy, cy
    gates = gi + hg if b_hh is None else gi + hg + b_hh
    i, f, g, o = gates.chunk(4, -1)
    c = ea.sigmoid(f) * c + ea.sigmoid(i) * ea.tanh(g)
    return ea.sigmoid(o) * ea.tanh(c), c


def _gru_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    cell = _fused("gru_cell", h)
    if cell is not None:
        return cell(gi, _hidden_product(h, w_hh, b_hh), h, None, b_hh)[0]
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = ea.sigmoid(i_r + h_r)
    z = ea.sigmoid(i_z + h_z)
    n = ea.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


def _rnn_step(gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None, nonlinearity: str) -> Tensor:
    pre = gi + F.linear(h, w_hh, b_hh)
    return ea.tanh(pre) if nonlinearity == "tanh" else ea.relu(pre)


class RNNBase(Module):
    """Shared parameters, checks and the time loop of `RNN`, `LSTM` and `GRU`."""

    def flatten_parameters(self) -> None:
        """A no-op: PyTorch packs the weights into one buffer for cuDNN; ember's kernels read them in place."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=3)
        for arg, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                 ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{arg} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = {"LSTM": 4, "GRU": 3}.get(mode, 1) * hidden_size
        num_directions = 2 if bidirectional else 1
        real_hidden = proj_size or hidden_size
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                params = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    params += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size:
                    params.append(("weight_hr", (proj_size, hidden_size)))
                for kind, shape in params:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(ea.empty(shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self) -> list:
        """The parameters in `_flat_weights_names` order (PyTorch's list, which weight-drop code reads)."""
        return [getattr(self, w, None) for w in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        n = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        names = self._flat_weights_names
        return [[getattr(self, w) for w in names[i:i + n]] for i in range(0, len(names), n)]

    def _layer_params(self, layer: int, direction: int):
        suffix = "_reverse" if direction == 1 else ""
        get = lambda kind: getattr(self, f"{kind}_l{layer}{suffix}") if self.bias or "weight" in kind else None
        w_hr = get("weight_hr") if self.proj_size else None
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), w_hr

    def _check_input(self, input: Tensor) -> bool:
        """Validates `input`; returns whether it is batched."""
        if input.dim() not in (2, 3):
            # PyTorch's wording: RNN's says "4D tensor", LSTM's and GRU's "4D"
            name, tensor = ("RNN", " tensor") if self.mode.startswith("RNN") else (self.mode, "")
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tensor} instead")
        self._check_dtype(input)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        return input.dim() == 3

    def _check_dtype(self, input: Tensor) -> None:
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype and not (ea.is_autocast_enabled("cpu") or ea.is_autocast_enabled("cuda")):
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). Convert "
                             f"input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")

    def _check_hidden(self, hx: Tensor, batch: int, what: str = "hidden") -> None:
        """`what`: "hidden", or LSTM's "hidden[0]" (h, projected) and "hidden[1]" (c), PyTorch's names."""
        size = self.proj_size if what != "hidden[1]" and self.proj_size else self.hidden_size
        expected = (self.num_layers * (2 if self.bidirectional else 1), batch, size)
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    # PyTorch's public checking helpers, for subclasses that call them
    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Tensor | None) -> tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.shape[0] if self.batch_first else input.shape[1]
        layers = self.num_layers * (2 if self.bidirectional else 1)
        return (layers, mini_batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Tensor | None) -> tuple[int, int, int]:
        layers, mini_batch, _ = self.get_expected_hidden_size(input, batch_sizes)
        return (layers, mini_batch, self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(tuple(expected_hidden_size), list(hx.shape)))

    def check_forward_args(self, input: Tensor, hidden, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        if self.mode == "LSTM":
            self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                                   "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                                   "Expected hidden[1] size {}, got {}")
        else:
            self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation: Tensor | None):
        """`hx` (or each of LSTM's (h, c)) reordered along the batch dimension by `permutation`."""
        if permutation is None:
            return hx
        if isinstance(hx, tuple | list):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    def _autocast_lowp(self, input: Tensor):
        """The dtype an LSTM runs in under CPU autocast: PyTorch sends a float32/bfloat16 LSTM without
        projections to oneDNN's `mkldnn_rnn_layer`, on autocast's lower-precision list, so its input, states and
        weights are cast and its outputs come back in the autocast dtype (GRU and RNN stay float32)."""
        if (self.mode == "LSTM" and not self.proj_size and input.device.type == "cpu"
                and input.dtype in (ea.float32, ea.bfloat16) and ea.is_autocast_enabled("cpu")):
            return ea.get_autocast_dtype("cpu")
        return None

    def _run(self, input: Tensor, hx: tuple[Tensor, ...] | None, lengths: list[int] | None = None, lowp=None):
        """The time loop over (L, N, H_in) input; hx holds (layers * dirs, N, H) states. With
        `lengths` (packed input), a sequence's state stops changing after its last step. `lowp`: the dtype
        input, states and weights are cast to first (`_autocast_lowp`)."""
        if lowp is not None:
            input = input.to(lowp)
            hx = None if hx is None else tuple(s.to(lowp) for s in hx)
        if self.proj_size and lengths is None:
            _warn_projections_once(input)
        seq_len, batch = input.shape[0], input.shape[1]
        num_directions = 2 if self.bidirectional else 1
        n_states = 2 if self.mode == "LSTM" else 1
        if hx is None:
            sizes = (self.proj_size or self.hidden_size, self.hidden_size)[:n_states]
            hx = tuple(ea.zeros(self.num_layers * num_directions, batch, size, dtype=input.dtype, device=input.device)
                       for size in sizes)
        finals: list[list[Tensor]] = [[] for _ in range(n_states)]
        masks = None
        if lengths is not None:
            masks = [ea.tensor([n > t for n in lengths], device=input.device).unsqueeze(-1) for t in range(seq_len)]
        layer_input = input
        for layer in range(self.num_layers):
            dir_outputs = []
            for direction in range(num_directions):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_params(layer, direction)
                if lowp is not None:
                    w_ih, w_hh, b_ih, b_hh = (None if w is None else w.to(lowp) for w in (w_ih, w_hh, b_ih, b_hh))
                idx = layer * num_directions + direction
                state = [s[idx] for s in hx]
                if (self.mode == "LSTM" and w_hr is None and masks is None and seq_len
                        and _fused("lstm_layer", layer_input) is not None and w_ih.dtype == layer_input.dtype
                        and (layer_input.dtype in _LAYER_DTYPES or layer_input.device.type != "cpu")):
                    out, h_n, c_n = _LSTMLayer.apply(layer_input, w_ih, w_hh, b_ih, b_hh, state[0], state[1],
                                                     direction == 1)
                    finals[0].append(h_n)
                    finals[1].append(c_n)
                    dir_outputs.append(out)
                    continue
                # under autocast PyTorch's GRU steps run their linears in the low dtype: those steps, recorded
                if (self.mode == "GRU" and masks is None and seq_len and _fused("gru_layer", layer_input) is not None
                        and w_ih.dtype == layer_input.dtype and layer_input.dtype in _LAYER_DTYPES
                        and not ea.is_autocast_enabled(layer_input.device.type)):
                    out, h_n = _GRULayer.apply(layer_input, w_ih, w_hh, b_ih, b_hh, state[0], direction == 1)
                    finals[0].append(h_n)
                    dir_outputs.append(out)
                    continue
                gi_all = _TimeSteps.apply(F.linear(layer_input, w_ih, b_ih)) if seq_len else ()
                steps = range(seq_len - 1, -1, -1) if direction == 1 else range(seq_len)
                outs: list[Tensor] = [None] * seq_len  # type: ignore[list-item]
                for t in steps:
                    if self.mode == "LSTM":
                        new = list(_lstm_step(gi_all[t], state[0], state[1], w_hh, b_hh))
                        if w_hr is not None:
                            new[0] = F.linear(new[0], w_hr)
                    elif self.mode == "GRU":
                        new = [_gru_step(gi_all[t], state[0], w_hh, b_hh)]
                    else:
                        new = [_rnn_step(gi_all[t], state[0], w_hh, b_hh, self.nonlinearity)]
                    state = new if masks is None else [ea.where(masks[t], n, o) for n, o in zip(new, state)]
                    outs[t] = state[0]
                for k in range(n_states):
                    finals[k].append(state[k])
                dir_outputs.append(ea.stack(outs, 0) if seq_len else
                                   ea.zeros(0, batch, self.proj_size or self.hidden_size))
            layer_input = dir_outputs[0] if num_directions == 1 else ea.cat(dir_outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = (F.dropout(layer_input, self.dropout, True) if lengths is None
                               else self._packed_dropout(layer_input, lengths))
        return layer_input, tuple(ea.stack(f, 0) for f in finals)

    def _packed_dropout(self, padded: Tensor, lengths: list[int]) -> Tensor:
        """Dropout between the layers of a packed run, as PyTorch's: one mask drawn over the packed data
        (the valid steps, time-major), so the random stream moves by sum(lengths) * H, not by the padding."""
        valid = ea.tensor([[n > t for n in lengths] for t in range(padded.shape[0])], device=padded.device)
        keep = F.dropout(ea.ones(int(valid.sum()), padded.shape[-1], dtype=padded.dtype, device=padded.device),
                         self.dropout, True)
        mask = ea.ones_like(padded)
        mask[valid] = keep
        return padded * mask

    def _states(self, hx, batch: int, unsqueeze: bool) -> tuple[Tensor, ...]:
        if self.mode == "LSTM":  # PyTorch reads hx[0] and hx[1]: a tensor or a 1-tuple fails as that indexing
            states = (hx[0], hx[1])
        elif isinstance(hx, Tensor):
            states = (hx,)
        else:  # an LSTM's (h, c) given to a GRU or RNN: PyTorch calls hx.dim()
            raise AttributeError(f"'{type(hx).__name__}' object has no attribute 'dim'")
        rank, kind = (2, "unbatched 2-D") if unsqueeze else (3, "batched 3-D")
        if any(st.dim() != rank for st in states):
            if self.mode == "LSTM":
                raise RuntimeError(f"For {kind} input, hx and cx should also be {rank}-D but got "
                                   f"({states[0].dim()}-D, {states[1].dim()}-D) tensors")
            raise RuntimeError(f"For {kind} input, hx should also be {rank}-D but got {states[0].dim()}-D tensor")
        if unsqueeze:
            states = tuple(s.unsqueeze(1) for s in states)
        for s, what in zip(states, ("hidden[0]", "hidden[1]") if self.mode == "LSTM" else ("hidden",)):
            self._check_hidden(s, batch, what)
        return tuple(states)

    def _packed_lstm_states(self, hx, batch: int) -> tuple[Tensor, Tensor]:
        """PyTorch checks no batch of a packed LSTM's (h, c): its kernel broadcasts them in the gate arithmetic,
        so a c of one sequence serves all and other batches fail with its broadcast errors."""
        h, c = hx
        gates = 4 * self.hidden_size
        if h.shape[1] != batch:
            if h.shape[1] == 1:
                raise RuntimeError(f"output with shape [1, {gates}] doesn't match the broadcast shape "
                                   f"[{batch}, {gates}]")
            raise RuntimeError(f"The size of tensor a ({h.shape[1]}) must match the size of tensor b ({batch}) at "
                               "non-singleton dimension 0")
        if c.shape[1] != batch:
            if c.shape[1] != 1:
                raise RuntimeError(f"The size of tensor a ({batch}) must match the size of tensor b ({c.shape[1]}) at "
                                   "non-singleton dimension 0")
            c = c.expand(c.shape[0], batch, c.shape[2])
        return h, c

    def _forward_packed(self, packed: PackedSequence, hx):
        padded, lengths = _unpack_sorted(packed)
        if self.mode == "LSTM" and padded.dtype != self.weight_ih_l0.dtype and not (
                ea.is_autocast_enabled("cpu") or ea.is_autocast_enabled("cuda")):
            # PyTorch's LSTM checks the dtype of unpacked input only; packed data meets the first GEMM's check
            from ember.core.dtypes import TORCH_NAMES

            names = [TORCH_NAMES[t.dtype.name] for t in (padded, self.weight_ih_l0)]
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {names[0]} and {names[1]}")
        self._check_dtype(padded)
        if padded.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {padded.shape[-1]}")
        if hx is not None and self.mode == "LSTM" and isinstance(hx, tuple | list) and len(hx) == 2 \
                and all(s.dim() == 3 for s in hx):
            if packed.sorted_indices is not None:
                hx = tuple(s.index_select(1, packed.sorted_indices) for s in hx)
            hx = self._states(self._packed_lstm_states(hx, padded.shape[1]), padded.shape[1], False)
        elif hx is not None:
            hx = self._states(hx, padded.shape[1], False)
            if packed.sorted_indices is not None:
                hx = tuple(s.index_select(1, packed.sorted_indices) for s in hx)
        output, finals = self._run(padded, hx, lengths)
        sizes = [int(b) for b in packed.batch_sizes.tolist()]
        data = ea.cat([output[t, :b] for t, b in enumerate(sizes)], 0)
        if packed.unsorted_indices is not None:
            finals = tuple(f.index_select(1, packed.unsorted_indices) for f in finals)
        out = PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        return out, (finals if self.mode == "LSTM" else finals[0])

    def forward(self, input: Tensor | PackedSequence, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        batched = self._check_input(input)
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if hx is not None:
            hx = self._states(hx, input.shape[1], not batched)
        if input.shape[0] == 0:  # ATen's _rnn_impl refuses empty time (an empty batch runs)
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, finals = self._run(input, hx, lowp=self._autocast_lowp(input))
        if not batched:
            output = output.squeeze(1)
            finals = tuple(f.squeeze(1) for f in finals)
        elif self.batch_first:
            output = output.transpose(0, 1)
            if self.mode != "LSTM":  # PyTorch's RNN and GRU transpose their output in place (`transpose_`)
                output = node_name(output, "TransposeBackward0", "TransposeBackward1")
        return output, (finals if self.mode == "LSTM" else finals[0])

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:  # PyTorch's order: proj_size second
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


def _refuse_proj_size(proj_size) -> None:
    """PyTorch's RNN and GRU refuse any `proj_size` keyword, even 0."""
    if proj_size is not None:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None, *, proj_size: int | None = None) -> None:
        _refuse_proj_size(proj_size)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, device=device, dtype=dtype)


def _warn_projections_once(input: Tensor) -> None:
    """PyTorch's TORCH_WARN_ONCE where its CPU LSTM with projections cannot take oneDNN (dense float32 or bfloat16
    input; a packed sequence or another dtype never asks for it)."""
    if input.device.type == "cpu" and input.dtype in (ea.float32, ea.bfloat16):
        warn_once(internally("LSTM with projections is not supported with oneDNN. Using default implementation.",
                             "aten/src/ATen/native/RNN.cpp:1512"))


class LSTM(RNNBase):
    """Long short-term memory; returns `output, (h_n, c_n)`.

    output is (L, N, D * hidden_size) ((N, L, ...) with `batch_first`); h_n and c_n are
    (D * num_layers, N, hidden_size), D = 2 if bidirectional else 1.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device=device, dtype=dtype)


class GRU(RNNBase):
    """Gated recurrent unit; returns `output, h_n`."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, device=None,
                 dtype=None, *, proj_size: int | None = None) -> None:
        _refuse_proj_size(proj_size)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


class RNNCellBase(Module):
    """Parameters (`weight_ih`, `weight_hh`, `bias_ih`, `bias_hh`) and checks of the cells."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(ea.empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(ea.empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(ea.empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(ea.empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input: Tensor, hx: Tensor | None) -> tuple[Tensor, bool]:
        nd = input.dim()  # then the sizes as tuples: a cell runs once per time step
        if nd not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {nd}D instead")
        if hx is not None and hx.dim() not in (1, 2):  # PyTorch's module checks; its kernel then the sizes
            raise ValueError(f"{type(self).__name__}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        size = input._shape[-1]
        if size != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {size} expected {self.input_size}")
        return (input if nd == 2 else input.unsqueeze(0)), nd == 2

    def _hidden(self, x: Tensor, hx: Tensor | None, batched: bool, k: int = 0) -> Tensor:
        """The state for the batched input `x`: zeros, or `hx` checked against it as PyTorch does."""
        if hx is None:
            return self._zeros(x)
        h = hx if batched else hx.unsqueeze(0)
        hs, n = h._shape, x._shape[0]
        if hs[0] != n:
            raise RuntimeError(f"Input batch size {n} doesn't match hidden{k} batch size {hs[0]}")
        if len(hs) != 2 or hs[1] != self.hidden_size:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {hs[1] if len(hs) > 1 else 1}, "
                               f"expected {self.hidden_size}")
        return h

    def _zeros(self, input: Tensor) -> Tensor:
        return ea.zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nl = getattr(self, "nonlinearity", "tanh")
        if nl != "tanh":
            s += f", nonlinearity={nl}"
        return s


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh", device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._prepare(input, hx)
        h = self._hidden(x, hx, batched)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = _rnn_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                        self.nonlinearity)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: `(h', c') = cell(x, (h, c))`; gates i, f, g, o in that order."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        nd = input.dim()  # once: a cell runs once per time step
        if nd not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {nd}D instead")
        if hx is not None:  # PyTorch's order: every state's rank, then its binding's tuple-only `hx`
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
            if not isinstance(hx, tuple | list):
                if nd == 2:
                    raise TypeError("lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not "
                                    f"{type(hx).__name__}")
                hx = (hx[0], hx[1])  # an unbatched step indexes a bare tensor's rows
            elif nd == 2 and len(hx) != 2:  # an unbatched step indexes hx[0] and hx[1] only
                raise RuntimeError("lstm_cell expects two hidden states")
        x, batched = self._prepare(input, None if hx is None else hx[0])
        h = self._hidden(x, None if hx is None else hx[0], batched, 0)
        c = self._hidden(x, None if hx is None else hx[1], batched, 1)
        h, c = _lstm_step(F.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: h' = (1 - z) n + z h; gates r, z, n in that order."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._prepare(input, hx)
        h = self._hidden(x, hx, batched)
        out = _gru_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        out = node_name(out, "GruCellBackward0", "AddBackward0")  # PyTorch's CPU cell ends `n + z * (h - n)`
        return out if batched else out.squeeze(0)
