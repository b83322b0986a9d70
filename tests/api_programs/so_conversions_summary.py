"""More forum staples: torch.Tensor vs torch.tensor and the legacy typed constructors, .type() strings,
from_numpy with negative strides, numpy dtypes into tensors, a Keras-like model summary from forward hooks
on every leaf, nn.Flatten/Unflatten, init gains and fans, no_grad as a decorator, inference-mode tensors, and
reading and changing the learning rate from param_groups."""

import numpy as np
import torch
import torch.nn as nn


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", out if not isinstance(out, torch.Tensor) else (tuple(out.shape), out.dtype))
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


# constructors
print(torch.Tensor([1, 2]).dtype, torch.Tensor(2, 3).shape, torch.tensor([1, 2]).dtype, torch.Tensor().shape)
print(torch.FloatTensor([1, 2]), torch.LongTensor([1, 2]).dtype, torch.DoubleTensor(2).shape)
print(torch.tensor([1.0]).type(), torch.tensor([1]).type(torch.FloatTensor).dtype,
      torch.tensor([1.5]).type("torch.IntTensor"), torch.zeros(1, dtype=torch.bool).type())
print(isinstance(torch.zeros(2), torch.FloatTensor), isinstance(torch.zeros(2, dtype=torch.long), torch.FloatTensor),
      torch.zeros(2).type(torch.float64).dtype)
catch("tensor_of_tensor_list", lambda: torch.Tensor([torch.tensor(1.0), torch.tensor(2.0)]))
catch("ragged", lambda: torch.tensor([[1, 2], [3]]))
catch("str_data", lambda: torch.tensor(["a"]))
catch("tensor_neg_size", lambda: torch.Tensor(-1))
print(torch.get_default_dtype(), torch.tensor(1.0).dtype, torch.tensor(1).dtype, torch.tensor(True).dtype,
      torch.tensor(1 + 2j).dtype)

# numpy
arr = np.arange(6, dtype=np.int32).reshape(2, 3)
print(torch.from_numpy(arr).dtype, torch.tensor(arr.astype(np.float64)).dtype,
      torch.as_tensor(arr, dtype=torch.float32))
catch("neg_stride", lambda: torch.from_numpy(arr[:, ::-1]))
print(torch.from_numpy(arr[:, ::-1].copy()), torch.from_numpy(np.ascontiguousarray(arr.T)).stride())
print(torch.from_numpy(arr.T).stride(), torch.from_numpy(arr[:, 1]).stride())
catch("object_array", lambda: torch.from_numpy(np.array([1, "a"], dtype=object)))
catch("uint16", lambda: torch.from_numpy(np.array([1], dtype=np.uint16)).dtype)
print(torch.tensor(np.array(3.5)).shape, torch.tensor([np.float32(1.0), np.float32(2.0)]).dtype,
      torch.tensor(np.int64(3)).dtype, torch.tensor([np.int16(1)]).dtype)
t = torch.ones(2, 2)
n = t.numpy()
n[0, 0] = 7
print(t[0, 0].item(), np.shares_memory(n, t.numpy()), t.numpy().flags["C_CONTIGUOUS"], t.t().numpy().strides)
print(torch.tensor([[1, 2], [3, 4]]).tolist(), torch.tensor(5).tolist(), torch.tensor([1.5]).tolist())

# model summary with hooks
model = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(4 * 3 * 3, 8), nn.ReLU(), nn.Linear(8, 2 * 3), nn.Unflatten(1, (2, 3)),
)
summary, handles = [], []
for name, mod in model.named_modules():
    if len(list(mod.children())) == 0:
        def hook(m, inp, out, name=name):
            summary.append((name, type(m).__name__, tuple(inp[0].shape), tuple(out.shape),
                            sum(p.numel() for p in m.parameters())))
        handles.append(mod.register_forward_hook(hook))
with torch.no_grad():
    out = model(torch.zeros(2, 1, 6, 6))
for row in summary:
    print("{:>3} {:10s} {:18s} {:18s} {:5d}".format(*[str(c) if i < 4 else c for i, c in enumerate(row)]))
for h in handles:
    h.remove()
print(out.shape, sum(p.numel() for p in model.parameters()), model[7], model[3], len(model))
print(nn.Flatten(0)(torch.zeros(2, 3)).shape, nn.Flatten(start_dim=2)(torch.zeros(2, 3, 4, 5)).shape)
catch("unflatten_bad", lambda: nn.Unflatten(1, (4, 2))(torch.zeros(2, 6)))
catch("flatten_bad", lambda: torch.zeros(2, 3).flatten(2, 1))

# init gains and fans
print([round(nn.init.calculate_gain(n), 4) for n in ["linear", "relu", "tanh", "sigmoid", "conv2d", "selu"]],
      round(nn.init.calculate_gain("leaky_relu", 0.2), 4))
print(nn.init._calculate_fan_in_and_fan_out(torch.empty(8, 4, 3, 3)),
      nn.init._calculate_fan_in_and_fan_out(torch.empty(5, 7)))
catch("gain_bad", lambda: nn.init.calculate_gain("gelu"))
catch("fan_1d", lambda: nn.init.xavier_uniform_(torch.empty(3)))
w = torch.empty(3, 4)
print(nn.init.eye_(w), nn.init.dirac_(torch.empty(2, 2, 3))[:, :, 1])
print(nn.init.constant_(torch.empty(2), 0.3), nn.init.ones_(torch.empty(1, 2)).requires_grad)


# no_grad decorator, inference mode
@torch.no_grad()
def evaluate(m, x):
    return m(x)


lin = nn.Linear(2, 1)
print(evaluate(lin, torch.ones(1, 2)).requires_grad, lin(torch.ones(1, 2)).requires_grad, torch.is_grad_enabled())
with torch.inference_mode():
    it = lin(torch.ones(1, 2))
print(it.requires_grad, it.is_inference(), torch.ones(1).is_inference())
catch("inference_backward", lambda: (lin.weight * it).sum().backward())
catch("inference_inplace", lambda: it.add_(1))
with torch.set_grad_enabled(False):
    print(lin(torch.ones(1, 2)).grad_fn)
torch.set_grad_enabled(True)

# learning rates
opt = torch.optim.SGD([{"params": lin.weight}, {"params": lin.bias, "lr": 0.01}], lr=0.1, momentum=0.9)
print([g["lr"] for g in opt.param_groups], opt.param_groups[0]["momentum"], sorted(opt.defaults))
for g in opt.param_groups:
    g["lr"] *= 0.5
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
opt.step()
sched.step()
print([round(x, 6) for x in sched.get_last_lr()], [round(g["lr"], 6) for g in opt.param_groups])
print(opt.state_dict()["param_groups"][1])
