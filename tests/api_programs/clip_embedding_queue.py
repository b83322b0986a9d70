"""A MoCo-style embedding queue for CLIP with a momentum text encoder: register_buffer queues with a pointer,
enqueue by slicing and by index_copy_, the EMA update with torch._foreach_mul_/_foreach_add_ and lerp_, logits
against the batch plus the queue, and the queue's state across state_dict round trips and wrap-around."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class QueueCLIP(nn.Module):
    def __init__(self, dim=8, K=12, m=0.9):
        super().__init__()
        self.image_encoder = nn.Linear(5, dim)
        self.text_encoder = nn.Linear(4, dim)
        self.text_encoder_m = copy.deepcopy(self.text_encoder)
        for p in self.text_encoder_m.parameters():
            p.requires_grad_(False)
        self.m, self.K = m, K
        self.register_buffer("queue", F.normalize(torch.randn(dim, K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))
        self.logit_scale = nn.Parameter(torch.tensor(2.0))

    @torch.no_grad()
    def momentum_update(self):
        for p, pm in zip(self.text_encoder.parameters(), self.text_encoder_m.parameters()):
            pm.data.mul_(self.m).add_(p.data, alpha=1 - self.m)

    @torch.no_grad()
    def dequeue_and_enqueue(self, keys):
        bs = keys.shape[0]
        ptr = int(self.queue_ptr)
        if ptr + bs <= self.K:
            self.queue[:, ptr : ptr + bs] = keys.T
        else:
            idx = (torch.arange(bs) + ptr) % self.K
            self.queue.index_copy_(1, idx, keys.T.contiguous())
        self.queue_ptr[0] = (ptr + bs) % self.K

    def forward(self, img, txt):
        q = F.normalize(self.image_encoder(img), dim=1)
        with torch.no_grad():
            self.momentum_update()
            k = F.normalize(self.text_encoder_m(txt), dim=1)
        l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", q, self.queue.clone().detach())
        logits = torch.cat([l_pos, l_neg], dim=1) * self.logit_scale.exp()
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self.dequeue_and_enqueue(k)
        return F.cross_entropy(logits, labels), logits


model = QueueCLIP()
print("buffers", [(n, tuple(b.shape), b.dtype) for n, b in model.named_buffers()])
print("momentum params frozen", [p.requires_grad for p in model.text_encoder_m.parameters()])
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
for step in range(4):
    img, txt = torch.randn(5, 5), torch.randn(5, 4)
    loss, logits = model(img, txt)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        step,
        round(loss.item(), 4),
        tuple(logits.shape),
        "ptr",
        model.queue_ptr.item(),
        round(model.queue.norm(dim=0).mean().item(), 4),
    )

print("queue col norms", model.queue.norm(dim=0).round(decimals=4).tolist()[:6])
diff = sum((p - pm).abs().sum() for p, pm in zip(model.text_encoder.parameters(), model.text_encoder_m.parameters()))
print("online vs momentum", round(diff.item(), 4))

# EMA by foreach and by lerp_ agree
a = [torch.ones(3), torch.full((2,), 2.0)]
b = [torch.zeros(3), torch.ones(2)]
a2 = [t.clone() for t in a]
torch._foreach_mul_(a, 0.9)
torch._foreach_add_(a, b, alpha=0.1)
for t, s in zip(a2, b):
    t.lerp_(s, 0.1)
print("foreach", [t.tolist() for t in a], all(torch.allclose(x, y) for x, y in zip(a, a2)))
print("lerp tensor weight", torch.lerp(torch.zeros(3), torch.ones(3), torch.tensor([0.0, 0.5, 1.0])).tolist())

sd = model.state_dict()
print("state keys", [k for k in sd if "queue" in k or "_m." in k])
fresh = QueueCLIP()
fresh.load_state_dict(sd)
print("queue restored", torch.equal(fresh.queue, model.queue), fresh.queue_ptr.tolist())
model.register_buffer("scratch", torch.zeros(2), persistent=False)
print("non-persistent", "scratch" in model.state_dict(), [n for n, _ in model.named_buffers()])

# wrap-around with index_copy_ vs roll
q = torch.arange(12.0).view(1, 12)
idx = (torch.arange(5) + 10) % 12
q.index_copy_(1, idx, -torch.ones(1, 5))
print("wrapped", q.tolist())
print("roll", torch.roll(torch.arange(6), shifts=-2).tolist(), torch.roll(torch.arange(6).view(2, 3), 1, 1).tolist())
try:
    q.index_copy_(1, idx, -torch.ones(1, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    model.register_buffer("queue_ptr", torch.zeros(1), persistent=True) or model.register_buffer("bad.name", None)
except Exception as e:
    print(type(e).__name__, e)
try:
    model.register_buffer("logit_scale", torch.zeros(1))
except Exception as e:
    print(type(e).__name__, e)
