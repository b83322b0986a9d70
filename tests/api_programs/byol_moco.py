"""Momentum self-supervision: a BYOL online/target pair whose EMA runs through torch._foreach_mul_/_foreach_add_
and lerp_ under no_grad, a MoCo key queue kept as a registered buffer (index_copy_, roll, a ptr buffer),
cosine-similarity logits with a temperature, and the target's frozen state and state_dict."""

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def init(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


def mlp(i, h, o):
    return nn.Sequential(nn.Linear(i, h), nn.BatchNorm1d(h), nn.ReLU(inplace=True), nn.Linear(h, o))


class BYOL(nn.Module):
    def __init__(self, tau=0.9):
        super().__init__()
        self.online = init(nn.Sequential(nn.Linear(8, 6), nn.ReLU(), mlp(6, 10, 4)))
        self.predictor = init(mlp(4, 10, 4))
        self.target = copy.deepcopy(self.online)
        self.target.requires_grad_(False)
        self.tau = tau

    @torch.no_grad()
    def update_target(self):
        o = [p for p in self.online.parameters()]
        t = [p for p in self.target.parameters()]
        torch._foreach_mul_(t, self.tau)
        torch._foreach_add_(t, o, alpha=1 - self.tau)
        for bo, bt in zip(self.online.buffers(), self.target.buffers()):
            if bt.dtype.is_floating_point:
                bt.lerp_(bo, 1 - self.tau)
            else:
                bt.copy_(bo)

    def loss(self, v1, v2):
        p1, p2 = self.predictor(self.online(v1)), self.predictor(self.online(v2))
        with torch.no_grad():
            z1, z2 = self.target(v1), self.target(v2)
        l1 = 2 - 2 * F.cosine_similarity(p1, z2.detach(), dim=-1)
        l2 = 2 - 2 * (F.normalize(p2, dim=-1) * F.normalize(z1, dim=-1)).sum(dim=-1)
        return (l1 + l2).mean()


byol = BYOL()
print("target frozen", all(not p.requires_grad for p in byol.target.parameters()),
      sum(p.numel() for p in byol.parameters() if p.requires_grad))
opt = torch.optim.SGD([p for n, p in byol.named_parameters() if not n.startswith("target")], lr=0.1, momentum=0.9)
x = T(6, 8)
for step in range(3):
    v1, v2 = x + 0.1 * T(6, 8), x * (1 + 0.1 * T(6, 8))
    loss = byol.loss(v1, v2)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    byol.update_target()
    diff = sum((a - b).pow(2).sum() for a, b in zip(byol.online.parameters(), byol.target.parameters()))
    print("byol", step, round(loss.item(), 4), round(diff.item(), 4))
print("target grads", [p.grad for p in byol.target.parameters()][:2])
print("bn buffers", r(byol.target[2][1].running_mean, 4), byol.target[2][1].num_batches_tracked.item())
t_old = [p.clone() for p in byol.target.parameters()]
with torch.no_grad():
    for pt, po in zip(byol.target.parameters(), byol.online.parameters()):
        pt.mul_(0.5).add_(po.detach(), alpha=0.5)
print("manual ema", round(sum((a - b).abs().sum() for a, b in zip(t_old, byol.target.parameters())).item(), 4))
out = torch._foreach_add([torch.ones(2), torch.zeros(3)], [torch.ones(2), torch.ones(3)])
print("foreach out", [o.tolist() for o in out], torch._foreach_norm([torch.ones(4), torch.full((2,), 3.0)]))
lst = [torch.ones(2), torch.full((2,), 2.0)]
torch._foreach_lerp_(lst, [torch.zeros(2), torch.zeros(2)], 0.25)
print("foreach lerp", [v.tolist() for v in lst])


class MoCo(nn.Module):
    def __init__(self, dim=4, K=12, m=0.99, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = init(nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, dim)))
        self.encoder_k = copy.deepcopy(self.encoder_q)
        for p in self.encoder_k.parameters():
            p.requires_grad = False
        queue = torch.from_numpy(rng.standard_normal((dim, K)).astype(np.float32))
        self.register_buffer("queue", F.normalize(queue, dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update(self):
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            pk.data = pk.data * self.m + pq.data * (1.0 - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        b = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % b == 0
        idx = torch.arange(ptr, ptr + b)
        self.queue.index_copy_(1, idx, keys.T)
        self.queue_ptr[0] = (ptr + b) % self.K

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update()
            k = F.normalize(self.encoder_k(im_k), dim=1)
        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._dequeue_and_enqueue(k)
        return logits, labels


moco = MoCo()
print("buffers", [(n, tuple(b.shape), b.dtype) for n, b in moco.named_buffers()])
print("state keys", [k for k in moco.state_dict() if "queue" in k])
opt = torch.optim.SGD(moco.encoder_q.parameters(), lr=0.05, weight_decay=1e-4)
for step in range(4):
    a = T(4, 8)
    logits, labels = moco(a + 0.05 * T(4, 8), a + 0.05 * T(4, 8))
    loss = F.cross_entropy(logits, labels)
    acc = (logits.argmax(dim=1) == labels).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("moco", step, tuple(logits.shape), round(loss.item(), 4), acc.item(), moco.queue_ptr.item(),
          r(moco.queue.norm(dim=0), 3))
print("queue", r(moco.queue[:, :4], 8))
q2 = moco.queue.roll(shifts=-4, dims=1)
print("roll", torch.equal(q2[:, -4:], moco.queue[:, :4]), r(q2[0], 4))
sd = moco.state_dict()
moco2 = MoCo()
print("load", moco2.load_state_dict(sd), torch.equal(moco2.queue, moco.queue), moco2.queue_ptr.tolist())
sim = F.cosine_similarity(T(3, 1, 4), T(1, 5, 4), dim=-1)
print("cos bcast", tuple(sim.shape), r(sim))
print("cos eps", F.cosine_similarity(torch.zeros(2, 3), torch.ones(2, 3)).tolist())
try:
    moco.queue.index_copy_(1, torch.tensor([0, 1]), torch.ones(3, 2))
except RuntimeError as e:
    print("index_copy err", type(e).__name__, str(e)[:90])
try:
    torch._foreach_add_([torch.ones(2)], [torch.ones(2), torch.ones(2)])
except RuntimeError as e:
    print("foreach err", type(e).__name__, str(e)[:90])
