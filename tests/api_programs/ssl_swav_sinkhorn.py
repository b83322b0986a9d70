"""SwAV's swapped prediction: prototypes as a bias-free Linear whose rows are re-normalized under no_grad each
step, Sinkhorn-Knopp codes with the reference code's transposes, in-place divisions and float64 option, a feature
queue used once it fills (torch.all(queue[i, -1] != 0)), multi-crop losses with log_softmax of the
prototype scores over a temperature, prototypes frozen for the first iterations by dropping their grads, and the
same step under CPU bfloat16 autocast."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


@torch.no_grad()
def distributed_sinkhorn(out, epsilon=0.05, iters=3):
    Q = torch.exp(out / epsilon).t()
    B = Q.shape[1]
    K = Q.shape[0]
    sum_Q = torch.sum(Q)
    Q /= sum_Q
    for it in range(iters):
        sum_of_rows = torch.sum(Q, dim=1, keepdim=True)
        Q /= sum_of_rows
        Q /= K
        Q /= torch.sum(Q, dim=0, keepdim=True)
        Q /= B
    Q *= B
    return Q.t()


class SwAV(nn.Module):
    def __init__(self, d=6, k=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, d))
        self.prototypes = nn.Linear(d, k, bias=False)

    def forward(self, crops):
        z = F.normalize(self.backbone(torch.cat(crops)), dim=1, p=2)
        return z, self.prototypes(z)


model = SwAV()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
queue = torch.zeros(2, 12, 6)
x = torch.randn(4, 8)
bs, nmb, crops_for_assign, temperature = 4, 3, [0, 1], 0.1
for it in range(5):
    with torch.no_grad():
        w = model.prototypes.weight.data.clone()
        w = F.normalize(w, dim=1, p=2)
        model.prototypes.weight.copy_(w)
    crops = [x + 0.1 * torch.randn_like(x), x * 0.9, x[:, torch.arange(7, -1, -1)] * 0.5]
    embedding, output = model(crops)
    embedding = embedding.detach()
    loss, used_queue = 0, False
    for i, crop_id in enumerate(crops_for_assign):
        with torch.no_grad():
            out = output[bs * crop_id : bs * (crop_id + 1)].detach()
            if it >= 3 and torch.all(queue[i, -1, :] != 0):
                used_queue = True
                out = torch.cat((torch.mm(queue[i], model.prototypes.weight.t()), out))
            queue[i, bs:] = queue[i, :-bs].clone()
            queue[i, :bs] = embedding[crop_id * bs : (crop_id + 1) * bs]
            q = distributed_sinkhorn(out)[-bs:]
        subloss = 0
        for v in [v for v in range(nmb) if v != crop_id]:
            p = F.softmax(output[bs * v : bs * (v + 1)] / temperature, dim=1)
            subloss -= torch.mean(torch.sum(q * torch.log(p), dim=1))
        loss += subloss / (nmb - 1)
    loss /= len(crops_for_assign)
    opt.zero_grad()
    loss.backward()
    if it < 2:
        for name, p in model.named_parameters():
            if "prototypes" in name:
                p.grad = None
    opt.step()
    print(
        it,
        round(loss.item(), 4),
        used_queue,
        q.shape,
        q.sum(1).round(decimals=4).tolist(),
        round(model.prototypes.weight.norm(dim=1).mean().item(), 4),
        int((queue[0].abs().sum(1) > 0).sum()),
    )

scores = torch.randn(6, 4)
Q = distributed_sinkhorn(scores, epsilon=0.5, iters=20)
print("codes", Q.sum(0).round(decimals=3).tolist(), Q.sum(1).round(decimals=3).tolist(), Q.argmax(1).tolist())
Q64 = distributed_sinkhorn(scores.double(), epsilon=0.5, iters=20)
print("float64", Q64.dtype, round((Q64 - Q.double()).abs().max().item(), 4))
print(
    "overflow",
    torch.isinf(torch.exp(scores / 0.001)).any().item(),
    torch.isnan(distributed_sinkhorn(scores, epsilon=0.001)).any().item(),
)

with torch.autocast("cpu", dtype=torch.bfloat16):
    emb, out = model([x, x * 0.9])
    p = F.softmax(out / temperature, dim=1)
    lp = F.log_softmax(out / temperature, dim=1)
    mm = torch.mm(emb, model.prototypes.weight.t())
print("autocast", emb.dtype, out.dtype, p.dtype, lp.dtype, mm.dtype, torch.is_autocast_enabled("cpu"))
codes = distributed_sinkhorn(out.float())
print("bf16 codes", codes.dtype, round(codes.sum().item(), 3))
for fn in [
    lambda: model.prototypes.weight.copy_(torch.zeros(5, 6)),
    lambda: queue[0, 4:].copy_(queue[1, :4]),
    lambda: torch.mm(queue[0], model.prototypes.weight),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)
