"""The errors beginners meet in the tutorials, caught and printed as training scripts and notebooks do: wrong
feature counts into nn.Linear, dtype slips (integer labels, double inputs), conv and RNN input ranks, BatchNorm
channels, integer tensors that require grad, in-place edits of saved tensors, permute, one-hot scatter, and the
named results (torch.max(x, 1)) whose repr users print."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        kinds = [k.__name__ for k in (RuntimeError, ValueError, TypeError, IndexError) if isinstance(e, k)]
        print(name, kinds, str(e).splitlines()[0])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(6 * 5 * 5, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = torch.flatten(x, 1)
        return self.fc1(x)


net = Net()
catch("right_size", lambda: net(T(2, 3, 14, 14)))
catch("wrong_size", lambda: net(T(2, 3, 16, 16)))
catch("unbatched_wrong", lambda: nn.Linear(24, 4)(T(54)))
catch("3d_wrong", lambda: nn.Linear(24, 4, bias=False)(T(2, 3, 54)))
catch("scalar_input", lambda: nn.Linear(24, 4)(torch.tensor(1.0)))
catch("long_input", lambda: nn.Linear(3, 2)(torch.ones(2, 3, dtype=torch.long)))
catch("double_input", lambda: nn.Linear(3, 2)(torch.ones(2, 3, dtype=torch.float64)))
catch("double_bias", lambda: F.linear(T(2, 3), T(2, 3), torch.zeros(2, dtype=torch.float64)))
catch("fixed_double", lambda: nn.Linear(3, 2).double()(torch.ones(2, 3, dtype=torch.float64)))
catch("conv_rank", lambda: net.conv1(T(14, 14)))
catch("conv1d_rank", lambda: nn.Conv1d(2, 3, 3)(T(3)))
catch("convT_rank", lambda: nn.ConvTranspose2d(2, 3, 3)(T(3, 3)))
catch("conv_unbatched", lambda: net.conv1(T(3, 14, 14)))
catch("bn_channels", lambda: nn.BatchNorm2d(3)(T(2, 4, 5, 5)))
catch("bn_no_stats", lambda: nn.BatchNorm1d(3, track_running_stats=False)(T(2, 4)))
catch("rnn_rank", lambda: nn.RNN(3, 4)(T(5, 2, 3, 1)))
catch("lstm_rank", lambda: nn.LSTM(3, 4)(T(5, 2, 3, 1)))
catch("gru_rank", lambda: nn.GRU(3, 4)(T(3)))
catch("bce_long", lambda: nn.BCELoss()(torch.sigmoid(T(4)), torch.tensor([1, 0, 1, 1])))
catch("bce_double", lambda: F.binary_cross_entropy(torch.sigmoid(T(4)), torch.ones(4, dtype=torch.float64)))
catch("bcel_long", lambda: nn.BCEWithLogitsLoss()(T(4), torch.tensor([1, 0, 1, 1])))
catch("bcel_fixed", lambda: round(nn.BCEWithLogitsLoss()(T(4), torch.tensor([1, 0, 1, 1]).float()).item(), 4))
catch("ce_float_labels", lambda: F.cross_entropy(T(4, 3), torch.tensor([0.0, 2.0, 1.0, 1.0])))
catch("ce_fixed_labels", lambda: round(F.cross_entropy(T(4, 3), torch.tensor([0.0, 2.0, 1.0, 1.0]).long()).item(), 4))
catch("ce_soft_labels", lambda: round(F.cross_entropy(T(4, 3), F.softmax(T(4, 3), dim=1)).item(), 4))
catch("ce_batch", lambda: nn.CrossEntropyLoss()(T(4, 3), torch.tensor([0, 1, 2])))
catch("nll_multi_target", lambda: F.nll_loss(F.log_softmax(T(2, 3), 1), torch.zeros(2, 3, dtype=torch.long)))
catch("int_grad_factory", lambda: torch.tensor([1, 2], requires_grad=True))
catch("int_grad_method", lambda: torch.arange(3).requires_grad_())
catch("int_grad_attr", lambda: setattr(torch.arange(3), "requires_grad", True))
catch("int_parameter", lambda: nn.Parameter(torch.arange(3)))
catch("int_parameter_frozen", lambda: nn.Parameter(torch.arange(3), requires_grad=False))


def inplace_on_output():
    x = torch.ones(2, requires_grad=True)
    y = x.exp()
    y.mul_(2)
    y.sum().backward()


def inplace_on_input():
    x = torch.ones(2, requires_grad=True)
    h = x * 3
    y = h * h
    h.add_(1)
    y.sum().backward()


def inplace_relu():
    x = torch.ones(2, requires_grad=True)
    y = torch.sigmoid(x)
    z = F.relu(y, inplace=True)
    z.sum().backward()
    return x.grad


catch("inplace_output", inplace_on_output)
catch("inplace_input", inplace_on_input)
catch("inplace_sigmoid_relu", inplace_relu)
catch("permute_too_many", lambda: T(2, 3).permute(0, 1, 2))
catch("permute_too_few", lambda: T(2, 3).permute(1))
catch("permute_dup", lambda: T(2, 3).permute(1, 1))
catch("assign_tensor_param", lambda: setattr(nn.Linear(2, 2), "weight", torch.ones(2, 2)))
catch("one_hot", lambda: torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(3), value=1).tolist())
catch("gather_0d", lambda: torch.arange(5.0).gather(0, torch.tensor(2)).item())
outputs = T(4, 3)
print(torch.max(outputs, 1))
_, predicted = torch.max(outputs, 1)
print("predicted", predicted.tolist())
print(outputs.topk(2, dim=1))
print(torch.sort(T(4), descending=True))
print(torch.min(T(2, 3), dim=0, keepdim=True))
print(torch.aminmax(torch.tensor([1.0, -2.0, 3.0])))
print(torch.linalg.slogdet(torch.tensor([[2.0, 1.0], [1.0, 3.0]])))
print(torch.median(torch.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]]), 1))
r = torch.max(outputs, 1)
print("fields", r.values.shape, r.indices.shape, type(r).__name__, isinstance(r, tuple), len(r), r[1].dtype)
blocks = nn.ModuleList([nn.TransformerEncoderLayer(8, 2, 16, batch_first=True) for _ in range(3)] + [nn.LayerNorm(8)])
print(blocks)
print(nn.RNN(4, 8, nonlinearity="relu", num_layers=2), nn.RNNCell(4, 8, nonlinearity="relu"))
print(nn.ParameterDict({"scale": nn.Parameter(torch.ones(3)),
                       "shift": nn.Parameter(torch.zeros(3, dtype=torch.float64))}))
