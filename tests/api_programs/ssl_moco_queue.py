"""MoCo v2 as its reference code writes it: a key encoder deep-copied from the query encoder with
requires_grad off, momentum updates per parameter and through torch._foreach ops, a queue and a long pointer
registered as buffers (enqueue by slicing, wrap-around by torch.roll), shuffle-BN by randperm/argsort,
einsum logits with the positive in column 0, and the buffers' state_dict round trip."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class MoCo(nn.Module):
    def __init__(self, dim=8, K=12, m=0.9, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = nn.Sequential(nn.Linear(10, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, dim))
        self.encoder_k = copy.deepcopy(self.encoder_q)
        for p in self.encoder_k.parameters():
            p.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(dim, K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * self.m + param_q.data * (1.0 - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0
        self.queue[:, ptr : ptr + batch_size] = keys.T
        ptr = (ptr + batch_size) % self.K
        self.queue_ptr[0] = ptr

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            idx_shuffle = torch.randperm(im_k.shape[0])
            idx_unshuffle = torch.argsort(idx_shuffle)
            k = F.normalize(self.encoder_k(im_k[idx_shuffle]), dim=1)[idx_unshuffle]
        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._dequeue_and_enqueue(k)
        return logits, labels


model = MoCo()
print([n for n, _ in model.named_buffers()][:2], model.queue_ptr.dtype, model.queue.shape)
print(
    "frozen",
    sum(p.requires_grad for p in model.encoder_k.parameters()),
    sum(p.numel() for p in model.parameters() if p.requires_grad),
)
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9, weight_decay=1e-4)
x = torch.randn(16, 10)
for step in range(4):
    xb = x[(step % 4) * 4 : (step % 4) * 4 + 4]
    im_q, im_k = xb + 0.1 * torch.randn_like(xb), xb + 0.1 * torch.randn_like(xb)
    logits, labels = model(im_q, im_k)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == labels).float().mean().item()
    print(
        step,
        logits.shape,
        round(loss.item(), 4),
        acc,
        model.queue_ptr.item(),
        round(model.queue.norm(dim=0).sum().item(), 4),
    )

# the torch._foreach EMA and a torch.roll queue as other codebases write them
q_params = list(model.encoder_q.parameters())
k_params = list(model.encoder_k.parameters())
before = k_params[0].clone()
with torch.no_grad():
    torch._foreach_mul_(k_params, 0.99)
    torch._foreach_add_(k_params, q_params, alpha=0.01)
print("foreach", round((k_params[0] - before).abs().sum().item(), 4))
with torch.no_grad():
    lerped = [p.clone() for p in k_params]
    torch._foreach_lerp_(lerped, q_params, 0.5)
    norms = torch._foreach_norm(torch._foreach_sub(lerped, k_params))
print("lerp", [round(n.item(), 4) for n in norms])

queue = torch.arange(12.0).view(1, 12).repeat(2, 1)
keys = torch.full((2, 3), -1.0)
queue = torch.roll(queue, shifts=-3, dims=1)
queue[:, -3:] = keys
print("roll", queue[0].tolist(), torch.roll(torch.arange(6).view(2, 3), (1, 1), (0, 1)).tolist())

# state_dict carries the queue and its pointer
sd = model.state_dict()
print(len(sd), sd["queue_ptr"], [k for k in sd if "running" in k][:2])
fresh = MoCo()
print(fresh.load_state_dict(sd), torch.equal(fresh.queue, model.queue), fresh.queue_ptr.item())
del sd["queue"]
try:
    fresh.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(fresh.load_state_dict(sd, strict=False))
try:
    model.register_buffer("queue", torch.zeros(3))
    model.register_buffer("encoder_q", torch.zeros(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("nc,ck->nk", model.queue.T, model.queue.T)
except Exception as e:
    print(type(e).__name__, e)
