"""The mistakes world-model code makes, as PyTorch reports them: straight-through without detach, KL over the
wrong axis, free bits on the sum vs the mean, dtype mixes in two-hot targets, in-place updates of saved tensors."""

import warnings

import torch
import torch.nn.functional as F
from torch.distributions import Independent, Normal, OneHotCategorical, kl_divergence

torch.manual_seed(0)
torch.set_printoptions(precision=4)
probs = F.softmax(torch.randn(2, 3, 4, requires_grad=True), -1)

# 1. straight-through: forgetting .detach() makes the sample soft
hard = F.one_hot(probs.argmax(-1), 4).float()
wrong = hard + probs - probs
right = hard + probs - probs.detach()
print(torch.equal(wrong, hard), wrong.grad_fn.name(), torch.equal(right.detach(), hard))
(wrong * torch.arange(4.0)).sum().backward(retain_graph=True)
print("no gradient reaches probs through `probs - probs`")
try:
    F.one_hot(probs.argmax(-1).int(), 4)
except RuntimeError as e:
    print("RuntimeError", e)

# 2. KL over the wrong axis: Independent reinterprets batch dims as event dims
post = OneHotCategorical(probs=probs.detach())
prior = OneHotCategorical(logits=torch.zeros(2, 3, 4))
kl_groups = kl_divergence(post, prior)
kl_sum = kl_divergence(Independent(post, 1), Independent(prior, 1))
print(kl_groups.shape, kl_sum.shape, torch.allclose(kl_groups.sum(-1), kl_sum))
try:
    kl_divergence(Independent(post, 1), prior)
except NotImplementedError as e:
    print("NotImplementedError", e)

# 3. free bits on the mean vs on the sum
free = 1.0
print(torch.clamp(kl_sum, min=free).mean(), torch.clamp(kl_sum.mean(), min=free), kl_sum.clamp_min(free).sum())
try:
    torch.clamp(kl_sum, min=torch.tensor([1.0, 2.0, 3.0]))
except RuntimeError as e:
    print("RuntimeError", e)
print(
    torch.clamp(kl_sum, min=torch.tensor(1.0, dtype=torch.float64)).dtype,
    torch.clamp(torch.tensor([1, 2]), min=1.5).dtype,
)

# 4. dtype mixes: int bins, float64 targets, bucketize against float16 boundaries
bins = torch.linspace(-3, 3, 7)
y = torch.tensor([0.5, -2.2], dtype=torch.float64)
idx = torch.bucketize(y, bins)
print(idx, idx.dtype, torch.bucketize(y.float(), bins.half()), torch.bucketize(torch.tensor([1, 2]), bins))
w = (y - bins[idx - 1]) / (bins[idx] - bins[idx - 1])
print(w.dtype, w)
t = torch.zeros(2, 7)
try:
    t.scatter_(1, idx[:, None] - 1, (1 - w)[:, None])
except RuntimeError as e:
    print("RuntimeError", e)
try:
    t.scatter_(1, (idx[:, None] - 1).int(), (1 - w.float())[:, None])
except RuntimeError as e:
    print("RuntimeError", e)
t.scatter_(1, idx[:, None] - 1, (1 - w.float())[:, None])
t.scatter_add_(1, idx[:, None], w.float()[:, None])
print(t)
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    t2 = torch.zeros(2, 7).scatter_(1, idx[:, None], 1.0, reduce="add")
    print(t2.sum(), [str(x.message)[:90] for x in ws])

# 5. in-place updates of tensors autograd saved
h = torch.randn(3, requires_grad=True)
g = torch.tanh(h)
out = g * 2
g.add_(1.0)
try:
    out.sum().backward()
    print("tanh saved its result:", h.grad is not None)
except RuntimeError as e:
    print("RuntimeError", str(e)[:160])
s = torch.sigmoid(h)
loss = (s**2).sum()
s.mul_(0.5)
try:
    loss.backward()
except RuntimeError as e:
    print("RuntimeError", str(e)[:160])

# 6. Normal with a negative std from a raw head, and a std of exactly 0
raw = torch.tensor([-0.5, 0.2])
for scale in [raw, F.softplus(raw) + 0.1, torch.zeros(2)]:
    try:
        print(Normal(torch.zeros(2), scale).log_prob(torch.zeros(2)))
    except ValueError as e:
        print("ValueError", str(e).split(" but found")[0])
print(Normal(torch.zeros(2), torch.zeros(2), validate_args=False).log_prob(torch.tensor([0.0, 1.0])))
# 7. lambda-returns summed into a tensor created without the right dtype/device
acc = torch.zeros(3, dtype=torch.long)
try:
    acc += torch.tensor([0.5, 1.5, 2.5])
except RuntimeError as e:
    print("RuntimeError", e)
acc2 = torch.zeros(3)
acc2 += torch.tensor([1, 2, 3])
print(acc2, acc2.dtype, (torch.tensor([1, 2]) * 0.5).dtype, (torch.tensor([1, 2]) // 2.0).dtype)
