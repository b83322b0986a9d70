"""Forum answers about models, pasted as is: counting (trainable) parameters, freezing layers, intermediate
activations with forward hooks, copying weights between models, init with apply() per layer type, accuracy,
numpy/list/tensor conversions and their errors under grad, detach vs .data vs no_grad, state_dict printing and
model summaries from named_modules / named_parameters."""

import copy
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(11)


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except (RuntimeError, ValueError, TypeError, IndexError, AttributeError, KeyError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(OrderedDict(fc1=nn.Linear(4 * 4 * 4, 16), act=nn.ReLU(),
                                                    drop=nn.Dropout(0.5), fc2=nn.Linear(16, 3)))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def init_weights(m):
    if isinstance(m, nn.Linear):
        with torch.no_grad():
            n = m.weight.numel()
            m.weight.copy_(torch.linspace(-0.5, 0.5, n).reshape(m.weight.shape))
            m.bias.fill_(0.01)
    elif isinstance(m, nn.Conv2d):
        nn.init.constant_(m.weight, 0.1)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


net = Net()
print(net.apply(init_weights) is net)
print(net)
total = sum(p.numel() for p in net.parameters())
trainable = sum(p.numel() for p in net.parameters() if p.requires_grad)
print("params", total, trainable, len(list(net.parameters())), len(net.state_dict()))
for name, p in net.named_parameters():
    print(f"{name:28s} {str(tuple(p.shape)):14s} {p.dtype} {p.requires_grad}")
for name, m in net.named_modules():
    print(repr(name), type(m).__name__, sum(p.numel() for p in m.parameters(recurse=False)))
for k, v in net.state_dict().items():
    print(k, list(v.shape), v.dtype)
print([n for n, _ in net.named_buffers()], [n for n, _ in net.named_children()])

# freezing
for p in net.features.parameters():
    p.requires_grad = False
net.features.requires_grad_(False)
print("frozen", sum(p.numel() for p in net.parameters() if p.requires_grad),
      [n for n, p in net.named_parameters() if not p.requires_grad])
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, net.parameters()), lr=0.1)
print("opt_params", sum(len(g["params"]) for g in opt.param_groups))

# activations with a forward hook
activation = {}


def get_activation(name):
    def hook(model, inp, output):
        activation[name] = output.detach()
    return hook


h1 = net.features[2].register_forward_hook(get_activation("relu"))
h2 = net.classifier.fc1.register_forward_hook(get_activation("fc1"))
x = torch.from_numpy(rng.standard_normal((5, 1, 8, 8)).astype(np.float32))
y = torch.tensor([0, 2, 1, 1, 0])
net.eval()
out = net(x)
print({k: tuple(v.shape) for k, v in activation.items()}, activation["fc1"].requires_grad)
print("fc1", activation["fc1"][:2, :4].round(decimals=4).tolist())
h1.remove()
h2.remove()
print("hooks", len(net.features[2]._forward_hooks), len(net.classifier.fc1._forward_hooks))

# accuracy
pred = out.argmax(dim=1)
correct = (pred == y).sum().item()
print("acc", pred.tolist(), correct, correct / len(y), (pred == y).float().mean().item(), type(correct).__name__)
_, top2 = out.topk(2, dim=1)
print("top2", top2.tolist(), (top2 == y[:, None]).any(1).float().mean().item())

# training step moves only the unfrozen
net.train()
net.classifier.drop.eval()  # dropout draws from the RNG: keep it off so the loss is comparable
print("modes", net.training, net.classifier.drop.training, net.features[1].training)
before = net.features[0].weight.clone()
loss = F.cross_entropy(net(x), y)
loss.backward()
print("grads", net.features[0].weight.grad is None, net.classifier.fc2.weight.grad.shape)
opt.step()
print("moved", torch.equal(before, net.features[0].weight), round(loss.item(), 4))

# copying weights between models
net2 = Net()
print(net2.load_state_dict(net.state_dict()))
print("same", all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), net2.state_dict().values())))
net3 = copy.deepcopy(net)
print("deep", net3.classifier.fc1.weight.data_ptr() != net.classifier.fc1.weight.data_ptr(),
      net3.features[0].weight.requires_grad)
with torch.no_grad():
    for pt, ps in zip(net2.parameters(), net.parameters()):
        pt.copy_(0.5 * pt + 0.5 * ps)
net2.classifier.fc2.weight.data = torch.zeros(3, 16)
print("fc2", net2.classifier.fc2.weight.sum().item(), net2.classifier.fc2.weight.requires_grad)
sd = net.state_dict()
sd.pop("classifier.fc2.bias")
r = net2.load_state_dict(sd, strict=False)
print(r.missing_keys, r.unexpected_keys)
catch("strict", lambda: net2.load_state_dict(sd))
catch("shape", lambda: nn.Linear(3, 2).load_state_dict({"weight": torch.zeros(2, 4), "bias": torch.zeros(2)}))

# conversions
t = torch.tensor([[1.5, 2.0], [3.0, 4.5]], requires_grad=True)
catch("numpy_grad", lambda: t.numpy())
print("detach_numpy", t.detach().numpy().tolist(), t.detach().cpu().numpy().dtype)
catch("item_many", lambda: t.item())
print("item", t[0, 0].item(), type(t.sum().item()).__name__, t.tolist(), torch.tensor(3).item())
catch("float_many", lambda: float(t))
print("int", int(torch.tensor(7.9)), float(torch.tensor([2.5])), bool(torch.tensor([1])))
catch("bool_many", lambda: bool(torch.tensor([1, 0])))
catch("list_of_tensors", lambda: torch.tensor([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])]))
print("stack_list", torch.stack([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])]).tolist())
print("from_list", torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]).tolist())
a = np.arange(4.0)
ft, at = torch.from_numpy(a), torch.as_tensor(a)
tt = torch.tensor(a)
a[0] = 9
print("share", ft[0].item(), at[0].item(), tt[0].item(), ft.dtype, torch.tensor(a, dtype=torch.float32).dtype)

# detach vs data vs no_grad
w = torch.tensor([1.0, 2.0], requires_grad=True)
d = w.detach()
print("detach", d.requires_grad, d.data_ptr() == w.data_ptr(), w.data.requires_grad, d.is_leaf)
with torch.no_grad():
    z = w * 2
print("no_grad", z.requires_grad, z.grad_fn, (w * 2).grad_fn.name())
y2 = (w * w).sum()
d.zero_()
catch("detach_inplace", lambda: y2.backward())
w2 = torch.tensor([1.0, 2.0], requires_grad=True)
(w2 * w2).sum().backward()
w2.data.mul_(10)
print("data_edit", w2.tolist(), w2.grad.tolist(), w2.requires_grad, w2.data.requires_grad)
catch("leaf_inplace", lambda: w2.add_(1))
catch("grad_nonleaf", lambda: (w2 * 2).grad)
catch("backward_nonscalar", lambda: (w2 * 2).backward())
