"""Post-hoc OOD scores of a classifier: max softmax probability, energy -T*logsumexp(f/T) (Liu et al.), the
energy-bounded fine-tuning loss with squared hinge margins, ODIN's temperature scaling with input perturbation by
sign of the gradient (normalised by per-channel std), and logsumexp/softmax corners (-inf rows, ints, dims)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 5))
x_in = torch.randn(4, 3, 6, 6)
x_out = torch.rand(4, 3, 6, 6) * 6 - 3
x = torch.cat([x_in, x_out])
logits = net(x)
T = 1.0
energy = -T * torch.logsumexp(logits / T, dim=1)
msp = F.softmax(logits, dim=1).max(dim=1)
print("energy", energy.detach())
print("msp", msp.values.detach(), msp.indices)
print("maxlogit", logits.max(1)[0].detach())
print("special lse", torch.special.logsumexp(logits, 1).detach().equal(torch.logsumexp(logits, 1).detach()))

# energy-bounded training loss on in/out batches
m_in, m_out = -25.0, -7.0
Ec_in = -torch.logsumexp(logits[:4], dim=1)
Ec_out = -torch.logsumexp(logits[4:], dim=1)
target = torch.tensor([0, 1, 2, 3])
loss = F.cross_entropy(logits[:4], target)
loss = loss + 0.1 * (torch.pow(F.relu(Ec_in - m_in), 2).mean() + torch.pow(F.relu(m_out - Ec_out), 2).mean())
loss.backward()
print("loss", round(loss.item(), 4), net[4].bias.grad)

# ODIN: temperature scaling + input preprocessing
std = torch.tensor([0.2023, 0.1994, 0.2010])


def odin(net, inputs, temper=1000.0, noise=0.0014):
    inputs = inputs.clone().requires_grad_(True)
    outputs = net(inputs)
    labels = outputs.detach().argmax(1)
    outputs = outputs / temper
    loss = F.cross_entropy(outputs, labels)
    loss.backward()
    gradient = torch.ge(inputs.grad.data, 0)
    gradient = (gradient.float() - 0.5) * 2
    gradient = gradient / std.view(1, 3, 1, 1)
    temp = torch.add(inputs.data, gradient, alpha=-noise)
    with torch.no_grad():
        out = net(temp) / temper
    return F.softmax(out, dim=1).max(1).values, gradient


net.zero_grad()
s, grad = odin(net, x)
print("odin", (s * 1000).round(decimals=3))
print("grad", grad.dtype, grad[0, :, 0, 0], grad.unique())
x2 = x.clone().requires_grad_()
F.cross_entropy(net(x2) / 1000, net(x).argmax(1)).backward()
pert = x2 - 0.0014 * torch.sign(-x2.grad)
print("sign", torch.sign(torch.tensor([-2.0, 0.0, -0.0, 3.0, float("nan")])), pert.requires_grad, pert.grad_fn.name())
print("sgn", torch.sgn(torch.tensor([3 + 4j, 0j])), torch.signbit(torch.tensor([-0.0, 0.0])))
print("leaf grad", x.grad, x2.grad.shape, x2.is_leaf)

# logsumexp corners
ninf = float("-inf")
print(torch.logsumexp(torch.tensor([[ninf, ninf], [0.0, ninf], [float("inf"), 1.0]]), dim=1))
print(torch.logsumexp(torch.tensor([[1, 2], [3, 4]]), dim=1), torch.logsumexp(torch.tensor([True, False]), 0))
print(torch.logsumexp(torch.randn(2, 3, 4), dim=(0, 2), keepdim=True).shape, torch.logsumexp(torch.tensor(2.0), 0))
print(torch.logsumexp(torch.empty(0, 3), dim=0), torch.logsumexp(torch.empty(2, 0), dim=1))
print(
    torch.logsumexp(torch.tensor([1000.0, 1000.0], dtype=torch.float16), 0),
    torch.logsumexp(torch.tensor([1.0, 2.0], dtype=torch.bfloat16), 0),
)
print(F.softmax(torch.tensor([[ninf, ninf], [0.0, ninf]]), dim=1), F.log_softmax(torch.tensor([ninf, 0.0]), 0))
try:
    torch.logsumexp(torch.tensor([1.0 + 1j]), 0)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.logsumexp(torch.randn(2, 3), dim=2)
except IndexError as e:
    print("IndexError", e)
try:
    torch.logsumexp(torch.randn(2, 3), dim=())
except RuntimeError as e:
    print("RuntimeError", e)
z = torch.tensor([[ninf, 0.0], [ninf, ninf]], requires_grad=True)
torch.logsumexp(z, 1).sum().backward()
print("lse grad", z.grad)
z = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
e = -5.0 * torch.logsumexp(z / 5.0, 0)
(g,) = torch.autograd.grad(e, z, create_graph=True)
(h,) = torch.autograd.grad(g.sum(), z)
print("energy grad", g, h.abs().max().item() < 1e-6, g.grad_fn is not None)
