"""SigLIP's pairwise sigmoid loss: labels 2*eye-1, logit_scale and logit_bias initialised at log(10) and -10,
F.logsigmoid summed over the matrix and divided by the batch, the chunked neighbour-exchange form that rolls the
text features, binary_cross_entropy_with_logits as a check, and gradients to both scalars."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def get_ground_truth(n, dtype=torch.float32, negative_only=False):
    labels = -torch.ones((n, n), dtype=dtype)
    if not negative_only:
        labels = 2 * torch.eye(n, dtype=dtype) + labels
    return labels


def sigmoid_loss(img, txt, logit_scale, logit_bias, negative_only=False):
    logits = logit_scale * img @ txt.T + logit_bias
    labels = get_ground_truth(img.shape[0], img.dtype, negative_only)
    return -F.logsigmoid(labels * logits).sum() / img.shape[0]


n, d = 5, 8
img = F.normalize(torch.randn(n, d), dim=-1).requires_grad_()
txt = F.normalize(img.detach() + 0.5 * torch.randn(n, d), dim=-1).requires_grad_()
t_prime = nn.Parameter(torch.tensor(math.log(10.0)))
bias = nn.Parameter(torch.tensor(-10.0))

labels = get_ground_truth(4)
print(labels.tolist(), labels.dtype)
print(get_ground_truth(3, torch.float64, negative_only=True).sum().item(), (2 * torch.eye(3) - 1).dtype)

loss = sigmoid_loss(img, txt, t_prime.exp(), bias)
print("loss", round(loss.item(), 4), loss.grad_fn.__class__.__name__)
loss.backward()
print("d scale", round(t_prime.grad.item(), 4), "d bias", round(bias.grad.item(), 4))
print("d img", img.grad.sum(1).round(decimals=4).tolist())

# same loss with binary_cross_entropy_with_logits on {0,1} targets
logits = t_prime.exp() * img @ txt.T + bias
bce = F.binary_cross_entropy_with_logits(logits, torch.eye(n), reduction="sum") / n
print("bce", round(bce.item(), 4), torch.allclose(bce, loss, atol=1e-5))
pw = F.binary_cross_entropy_with_logits(logits, torch.eye(n), pos_weight=torch.full((n,), 2.0))
print("pos_weight", round(pw.item(), 4))
w = F.binary_cross_entropy_with_logits(logits, torch.eye(n), weight=torch.eye(n) * 3 + 1, reduction="none")
print("weighted rows", w.sum(1).round(decimals=4).tolist())
print("softplus form", round(F.softplus(-(2 * torch.eye(n) - 1) * logits).sum().div(n).item(), 4))

# chunked: each "device" holds two rows and exchanges text features with its neighbours
img_chunks = img.detach().chunk(3)
txt_chunks = txt.detach().chunk(3)
print("chunks", [tuple(c.shape) for c in img_chunks])
total = 0.0
with torch.no_grad():
    scale = t_prime.exp()
    for r, ic in enumerate(img_chunks):
        for s, tc in enumerate(txt_chunks):
            lg = scale * ic @ tc.T + bias
            lab = -torch.ones_like(lg)
            if r == s:
                lab = lab + 2 * torch.eye(lg.shape[0])
            total += -F.logsigmoid(lab * lg).sum()
print("chunked", round((total / n).item(), 4))

# the ring exchange as torch.roll of the text batch
with torch.no_grad():
    ring = sum(-F.logsigmoid(-(scale * (img * torch.roll(txt, k, dims=0)).sum(-1) + bias)).sum() for k in range(1, n))
    diag = -F.logsigmoid(scale * (img * txt).sum(-1) + bias).sum()
    off = -F.logsigmoid(-(scale * img @ txt.T + bias)).sum() - (
        -F.logsigmoid(-(scale * (img * txt).sum(-1) + bias)).sum()
    )
    print("roll covers all pairs", torch.allclose(ring, off * 1.0, rtol=1e-4), round(((diag + off) / n).item(), 4))

# bias/scale trajectories under SGD
opt = torch.optim.SGD([t_prime, bias], lr=0.05)
for step in range(4):
    opt.zero_grad()
    l = sigmoid_loss(img.detach(), txt.detach(), t_prime.exp(), bias)
    l.backward()
    opt.step()
    print(step, round(l.item(), 4), round(t_prime.item(), 4), round(bias.item(), 4))

print("logsigmoid extremes", F.logsigmoid(torch.tensor([-100.0, 0.0, 30.0])).round(decimals=4).tolist())
print("sigmoid probs", torch.sigmoid(logits.detach()).diag().round(decimals=4).tolist())
try:
    F.binary_cross_entropy_with_logits(logits, torch.eye(n + 1))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.logsigmoid(torch.tensor([1, 2]))
except Exception as e:
    print(type(e).__name__, e)
