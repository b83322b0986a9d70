"""MemAE (Gong et al.) memory-augmented autoencoder addressing and prototype-based anomaly scores: cosine attention
over a learned memory with hard shrinkage relu(w - l) * w / (|w - l| + eps), the addressing entropy loss, prototype
pulls through cdist for p in {0, 1, 2, inf} (gradients to both operands, ties, zeros) and norm-order corners."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class MemoryUnit(nn.Module):
    def __init__(self, mem_dim, fea_dim, shrink_thres=0.0025):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(mem_dim, fea_dim))
        self.shrink_thres = shrink_thres
        stdv = 1.0 / self.weight.size(1) ** 0.5
        self.weight.data.uniform_(-stdv, stdv)

    def forward(self, x):
        att = F.linear(x, self.weight)
        att = F.softmax(att, dim=1)
        if self.shrink_thres > 0:
            att = F.relu(att - self.shrink_thres) * att / (torch.abs(att - self.shrink_thres) + 1e-12)
            att = F.normalize(att, p=1, dim=1)
        return att @ self.weight, att

    def extra_repr(self):
        return f"mem_dim={self.weight.size(0)}, fea_dim={self.weight.size(1)}, shrink={self.shrink_thres}"


mem = MemoryUnit(6, 4, shrink_thres=1 / 6)
print(mem)
z = torch.randn(5, 4, requires_grad=True)
out, att = mem(z)
entropy = (-att * torch.log(att + 1e-12)).sum(dim=1).mean()
print("att", att.detach(), (att == 0).sum().item())
print("entropy", round(entropy.item(), 4), out.shape)
loss = F.mse_loss(out, z.detach()) + 0.0002 * entropy
loss.backward()
print("grads", mem.weight.grad.abs().sum().round(decimals=4), z.grad.shape, z.grad.abs().max().round(decimals=4))
print("cos addressing", F.cosine_similarity(z.detach().unsqueeze(1), mem.weight.detach().unsqueeze(0), dim=-1).shape)

# prototype scores and their gradients for each distance order
protos = torch.tensor([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], requires_grad=True)
q = torch.tensor([[0.0, 0.0, 0.0], [1.0, -1.0, 0.5], [2.0, 2.0, 0.0]], requires_grad=True)
for p in [0.0, 1.0, 2.0, float("inf")]:
    protos.grad, q.grad = None, None
    d = torch.cdist(q, protos, p=p)
    d.min(dim=1).values.sum().backward()
    print("p", p, d.detach(), q.grad, protos.grad)
q.grad = None
(torch.cdist(q, protos, p=2) * torch.tensor([[-1.0, 1.0]])).sum().backward()
print("negative upstream", q.grad)
dd = torch.cdist(q, protos, p=3)
g1, g2 = torch.autograd.grad(dd.sum(), (q, protos), create_graph=True)
print("create_graph", g1.grad_fn.name(), g2.grad_fn.name())
try:
    g1.sum().backward()
except NotImplementedError as e:
    print("NotImplementedError", e)

v = torch.tensor([[1.0, 0.0, -3.0], [0.0, 0.0, 0.0]], requires_grad=True)
print("norm0", torch.linalg.vector_norm(v, 0, dim=1), torch.norm(v, p=0))
torch.linalg.vector_norm(v, 0).backward()
print("norm0 grad", v.grad)
(torch.linalg.vector_norm(v, 0) + torch.linalg.vector_norm(v, float("inf"))).backward()
print("norm0+inf grad", v.grad)
v.grad = None
torch.dist(v, torch.ones(3), p=0).backward()
print("dist0 grad", v.grad)
print("grad allow_unused", torch.autograd.grad(torch.linalg.vector_norm(v, 0), v, allow_unused=True))
(g,) = torch.autograd.grad(torch.pdist(v, p=0).sum(), v)
print("pdist0 grad", g)
w = torch.tensor([[-0.5, 1.0, -2.0, 0.0]], requires_grad=True)
torch.linalg.vector_norm(w, float("inf")).backward()
print("vector_norm inf", w.grad)
w.grad = None
torch.cdist(torch.zeros(1, 4), w, p=float("inf")).backward()
print("cdist inf x2", w.grad)
w.grad = None
torch.cdist(torch.zeros(1, 4), w, p=1).backward()
print("cdist p1 x2", w.grad)
