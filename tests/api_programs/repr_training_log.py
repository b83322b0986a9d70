"""A small training script that prints everything along the way, as tutorials and debugging sessions do:
the model and optimizer, raw loss tensors with their grad_fn, logits/probabilities/predictions, gradients
and their norms, parameters (a Parameter subclass and a tensor subclass included), state_dict entries,
running BatchNorm statistics, and a final evaluation printed with a precision set for the report."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ScaleParam(nn.Parameter):
    """A Parameter subclass, as libraries define to tag special weights."""


class Tagged(torch.Tensor):
    pass


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 3)
        self.scale = ScaleParam(torch.ones(1))

    def forward(self, x):
        return self.fc2(F.relu(self.bn(self.fc1(x)))) * self.scale


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
print(model)
print(opt)
print(model.scale)
print([(n, type(p).__name__, tuple(p.shape)) for n, p in model.named_parameters()])

x = torch.randn(16, 4)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
print(x[:3], y)
for epoch in range(3):
    model.train()
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    print(f"epoch {epoch}", loss)
    loss.backward()
    print(model.fc2.bias.grad, model.scale.grad)
    print([round(p.grad.norm().item(), 4) for p in model.parameters()])  # fc1's bias: BatchNorm cancels it (~1e-8)
    total = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    print("clip", total)
    opt.step()
    print("bn running", model.bn.running_mean[:4], model.bn.num_batches_tracked)

model.eval()
with torch.no_grad():
    logits = model(x[:5])
    probs = logits.softmax(-1)
    print(logits)
    print(probs, probs.sum(-1).round(decimals=4))
    print(probs.argmax(-1), probs.max(-1))
    print((model(x).argmax(-1) == y).float().mean())
print(logits.requires_grad, model(x[:2]))

sd = model.state_dict()
for k, v in sd.items():
    print(k, v.dtype, tuple(v.shape), v.flatten()[:3])
print(opt.state_dict()["state"][0]["momentum_buffer"][:2])

t = torch.arange(4.0).as_subclass(Tagged)
print(t, t * 2, type(t[1:]).__name__, t.sum())
print(nn.Parameter(torch.ones(2)) * t[:2])

torch.set_printoptions(precision=2, sci_mode=False)
print("report")
print(model.fc1.weight)
print(model.fc2.weight.grad)
print(F.softmax(model(x[:2]), -1))
torch.set_printoptions(profile="default")
print(model.fc1.bias)
