"""Adapting frozen CLIP features: a logistic-regression linear probe fit with LBFGS (strong Wolfe), class
prototypes via index_add_/scatter_reduce, a Tip-Adapter cache (exp(-beta (1 - affinity)) @ one-hot values),
WiSE-FT interpolation of zero-shot and fine-tuned heads with torch.lerp over state dicts, and accuracies."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

C, D, per = 4, 8, 6
centers = F.normalize(torch.randn(C, D), dim=-1)
labels = torch.arange(C).repeat_interleave(per)
feats = F.normalize(centers[labels] + 0.35 * torch.randn(C * per, D), dim=-1)
test_labels = torch.arange(C).repeat(5)
test_feats = F.normalize(centers[test_labels] + 0.35 * torch.randn(C * 5, D), dim=-1)
print("features", tuple(feats.shape), tuple(test_feats.shape), torch.bincount(labels).tolist())

# linear probe with L2 penalty, full-batch LBFGS
probe = nn.Linear(D, C)
nn.init.zeros_(probe.weight)
nn.init.zeros_(probe.bias)
opt = torch.optim.LBFGS(probe.parameters(), lr=1.0, max_iter=50, history_size=10, line_search_fn="strong_wolfe")
lam = 1e-2
evals = []


def closure():
    opt.zero_grad()
    loss = F.cross_entropy(probe(feats), labels) + lam * probe.weight.pow(2).sum()
    loss.backward()
    evals.append(loss.item())
    return loss


final = opt.step(closure)
print("lbfgs", round(evals[0], 4), round(final.item(), 4), round(evals[-1], 4), len(evals) > 3)
state = opt.state[opt._params[0]]
print("lbfgs state", sorted(k for k in state if k in ("func_evals", "n_iter")), state["n_iter"] > 1)
acc = (probe(test_feats).argmax(1) == test_labels).float().mean().item()
print("probe acc", round(acc, 4), "weight norm", round(probe.weight.norm().item(), 3))

# class prototypes
protos = torch.zeros(C, D).index_add_(0, labels, feats) / torch.bincount(labels).unsqueeze(1)
protos2 = torch.zeros(C, D).scatter_reduce(0, labels[:, None].expand(-1, D), feats, reduce="mean", include_self=False)
print("prototypes agree", torch.allclose(protos, protos2, atol=1e-6), protos.norm(dim=1).round(decimals=4).tolist())
proto_logits = 100 * test_feats @ F.normalize(protos, dim=-1).T
print("proto acc", (proto_logits.argmax(1) == test_labels).float().mean().item())

# Tip-Adapter
zs_weights = F.normalize(centers + 0.3 * torch.randn(C, D), dim=-1).T
cache_keys = feats.T
cache_values = F.one_hot(labels, C).float()
beta, alpha = 5.5, 1.0
affinity = test_feats @ cache_keys
cache_logits = ((-1) * (beta - beta * affinity)).exp() @ cache_values
clip_logits = 100.0 * test_feats @ zs_weights
tip_logits = clip_logits + cache_logits * alpha
print("affinity", tuple(affinity.shape), round(affinity.max().item(), 4), round(cache_logits.sum().item(), 4))
for name, lg in (("zero-shot", clip_logits), ("cache", cache_logits), ("tip", tip_logits)):
    print(name, (lg.argmax(1) == test_labels).float().mean().item())

# WiSE-FT: interpolate the zero-shot head and the probe's weights
zs_head = nn.Linear(D, C)
with torch.no_grad():
    zs_head.weight.copy_(zs_weights.T * 10)
    zs_head.bias.zero_()
theta0, theta1 = zs_head.state_dict(), probe.state_dict()
for a in (0.0, 0.5, 1.0):
    mixed = {k: torch.lerp(theta0[k], theta1[k], a) for k in theta0}
    head = nn.Linear(D, C)
    head.load_state_dict(mixed)
    acc = (head(test_feats).argmax(1) == test_labels).float().mean().item()
    print("wise", a, round(acc, 4), round(mixed["weight"].norm().item(), 3))
print("lerp scalar tensor", torch.lerp(torch.tensor([0.0, 10.0]), torch.tensor([10.0, 0.0]), 0.25).tolist())

try:
    torch.optim.LBFGS(probe.parameters(), line_search_fn="backtracking")
except Exception as e:
    print(type(e).__name__, e)
try:
    opt.step()
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(C, D).index_add_(0, labels.float(), feats)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(C, D).scatter_reduce(0, labels[:, None].expand(-1, D), feats, reduce="avg")
except Exception as e:
    print(type(e).__name__, e)
