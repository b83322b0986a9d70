"""How tensors print once autograd is involved: requires_grad=True leaves, grad_fn names of arithmetic,
reductions, views, indexing, in-place ops and casts; detach/no_grad/inference_mode results; .grad after
backward; nn.Parameter reprs (scalar, float64, frozen, empty); views of leaves and retain_grad."""

import torch
import torch.nn as nn

torch.manual_seed(0)
w = torch.randn(2, 3, requires_grad=True)
b = torch.zeros(3, requires_grad=True, dtype=torch.float64)
print(w)
print(b)
print(torch.tensor(2.5, requires_grad=True), torch.ones(0, requires_grad=True))

y = w * 2 + 1
print(y)
print(w.sum(), w.mean(dim=0), w.max(), w.norm(), w.std(), w.prod())
print(w.exp().log(), w.sigmoid(), w.tanh(), w.relu(), w.pow(2), w.abs(), w.clamp(-0.5, 0.5))
print(w @ w.t(), torch.matmul(w.t(), w))
print(w[0], w[:, 1], w[0, 1], w[[0, 1], [2, 0]], w[w > 0])
print(w.view(3, 2), w.reshape(-1), w.t(), w.T, w.unsqueeze(0).shape, w.squeeze(), w.flatten())
print(w.transpose(0, 1).contiguous(), w.permute(1, 0), w.expand(2, 2, 3).shape, w.narrow(1, 0, 2))
print(w.double(), w.to(torch.float16), w.half().float(), w.clone(), w.detach())
print(torch.cat([w, w]), torch.stack([w[0], w[1]]), w.chunk(2)[1], w.split(1, dim=0)[0])
print(torch.where(w > 0, w, torch.zeros(())), torch.softmax(w, -1), torch.log_softmax(w, 1))
print(w.cumsum(1), w.mean(), w.var(), torch.einsum("ij,ij->i", w, w))

c = w.clone()
c.add_(1)
print(c)
c[0, 0] = 5.0
print(c)
c.mul_(2).sub_(1)
print(c.grad_fn.name(), c.is_leaf, w.is_leaf, c.requires_grad)

with torch.no_grad():
    print(w * 3, (w * 3).requires_grad)
with torch.inference_mode():
    z = w + 1
    print(z, z.is_inference())
print(w.detach().requires_grad_(), w.data)

loss = (w ** 2).sum() + b.sum()
print(loss)
loss.backward()
print(w.grad, b.grad)
print(w.grad.requires_grad, w.grad.grad_fn)

# retain_grad on a non-leaf
h = w * 3
h.retain_grad()
h.sum().backward()
print(h.grad, w.grad)
w.grad = None
print(w.grad)

# create_graph: the grad itself has a grad_fn
x = torch.tensor([1.0, 2.0], requires_grad=True)
(g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
print(g)
(g2,) = torch.autograd.grad(g.sum(), x)
print(g2)

# nn.Parameter in every shape
print(nn.Parameter(torch.tensor([1.5, -2.0])))
print(nn.Parameter(torch.tensor(3.0)))
print(nn.Parameter(torch.ones(2, 2, dtype=torch.float64)))
print(nn.Parameter(torch.ones(3), requires_grad=False))
print(nn.Parameter(torch.empty(0, 4)))
print(nn.Parameter(torch.arange(4.0).reshape(2, 2)) * 1)
lin = nn.Linear(3, 2)
print(lin.weight)
print(lin.bias)
print(repr(lin.weight.data), lin.weight[0], lin.bias.detach())
print(str(lin.weight) == repr(lin.weight), str(lin.weight).splitlines()[0])
out = lin(w)
print(out)
print(nn.functional.mse_loss(out, torch.zeros(2, 2)))
print(nn.functional.cross_entropy(out, torch.tensor([0, 1])))
print(nn.functional.gelu(out), nn.functional.dropout(out, 0.0), nn.functional.layer_norm(out, (2,)))
print([(n, p.shape, p.requires_grad) for n, p in lin.named_parameters()])
lin.requires_grad_(False)
print(lin(w))
print(lin.weight)
print(lin(w.detach()))

# complex and half leaves
zc = torch.randn(2, dtype=torch.complex64, requires_grad=True)
print(zc, zc.abs(), zc.conj(), zc.real, (zc * zc).sum())
hf = torch.randn(3).half().requires_grad_()
print(hf, hf * 2, hf.float().sum())
