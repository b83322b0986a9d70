"""Network slimming (Liu et al., 2017): L1 sparsity on BatchNorm scales added to the gradients, a global threshold
from the sorted gammas, channel masks turned into a compact network with index_select on conv weights and BN
statistics, and a check that the slim network computes what the masked wide one does."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class VGGish(nn.Module):
    def __init__(self, cfg=(8, 8, "M", 12), n_cls=3):
        super().__init__()
        layers, c = [], 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2))
            else:
                layers += [nn.Conv2d(c, v, 3, padding=1, bias=False), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
                c = v
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(c, n_cls)

    def forward(self, x):
        return self.classifier(F.adaptive_avg_pool2d(self.features(x), 1).flatten(1))


net = VGGish()
X, Y = torch.randn(16, 3, 8, 8), torch.randint(0, 3, (16,))
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
lam = 5e-2
for epoch in range(8):
    opt.zero_grad()
    loss = F.cross_entropy(net(X), Y)
    loss.backward()
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.grad.add_(lam * torch.sign(m.weight.data))
    opt.step()
    l1 = sum(m.weight.abs().sum() for m in net.modules() if isinstance(m, nn.BatchNorm2d))
    print(epoch, round(loss.item(), 4), round(l1.item(), 4))

bns = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
gammas = torch.cat([m.weight.detach().abs() for m in bns])
sorted_g, order = torch.sort(gammas)
thr = sorted_g[int(gammas.numel() * 0.4)]
print("n gammas", gammas.numel(), "threshold", round(thr.item(), 4), order[:4].tolist())
masks = [m.weight.detach().abs().ge(thr) for m in bns]
print("kept per layer", [int(k.sum()) for k in masks], [k.nonzero().flatten().tolist() for k in masks][0])

# apply masks to the wide network (zero gamma and beta) to define the reference
net.eval()
wide = VGGish()
wide.load_state_dict(net.state_dict())
wide.eval()
with torch.no_grad():
    for m, k in zip([m for m in wide.modules() if isinstance(m, nn.BatchNorm2d)], masks):
        m.weight.mul_(k)
        m.bias.mul_(k)

cfg = [int(masks[0].sum()), int(masks[1].sum()), "M", int(masks[2].sum())]
slim = VGGish(tuple(cfg)).eval()
convs_old = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
convs_new = [m for m in slim.modules() if isinstance(m, nn.Conv2d)]
bns_new = [m for m in slim.modules() if isinstance(m, nn.BatchNorm2d)]
in_idx = torch.arange(3)
with torch.no_grad():
    for old_c, new_c, old_b, new_b, k in zip(convs_old, convs_new, bns, bns_new, masks):
        out_idx = k.nonzero().squeeze(1)
        w = old_c.weight.index_select(1, in_idx).index_select(0, out_idx)
        new_c.weight.copy_(w)
        for name in ["weight", "bias", "running_mean", "running_var"]:
            getattr(new_b, name).copy_(getattr(old_b, name).index_select(0, out_idx))
        new_b.num_batches_tracked.copy_(old_b.num_batches_tracked)
        in_idx = out_idx
    slim.classifier.weight.copy_(net.classifier.weight[:, in_idx])
    slim.classifier.bias.copy_(net.classifier.bias)

count = lambda m: sum(p.numel() for p in m.parameters())
print("params", count(net), "->", count(slim), "ratio", round(count(slim) / count(net), 4))
print(slim.features)
with torch.no_grad():
    a, b = wide(X), slim(X)
    print("slim == masked wide", torch.allclose(a, b, atol=1e-5), round((a - b).abs().max().item(), 6))
    print("acc wide/slim", (a.argmax(1) == Y).float().mean().item(), (b.argmax(1) == Y).float().mean().item())
print("bn stats", bns_new[0].running_var.round(decimals=4).tolist()[:3], bns_new[0].num_batches_tracked.item())
print("weight index_select", tuple(convs_new[1].weight.shape), convs_new[1].weight.is_contiguous())
try:
    convs_old[0].weight.index_select(0, torch.tensor([0.0, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    convs_old[0].weight.index_select(0, torch.tensor([[0, 1]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    convs_old[0].weight.index_select(0, torch.tensor([9]))
except Exception as e:
    print(type(e).__name__, e)
try:
    slim.load_state_dict(net.state_dict())
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[1].strip()[:120])
