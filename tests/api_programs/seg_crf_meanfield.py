"""A dense-CRF-like refinement as CRF-as-RNN code writes it: unary potentials from a segmentation net, Gaussian
spatial and bilateral-ish appearance messages by conv2d with fixed depthwise kernels, a learned 1x1 compatibility
transform, mean-field iterations with softmax, and gradients flowing back through the unrolled updates."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
C = 3


def r(t):
    return round(float(torch.as_tensor(t).detach()), 4)


def gaussian_kernel(size, sigma):
    ax = torch.arange(size, dtype=torch.float32) - (size - 1) / 2
    g = torch.exp(-(ax**2) / (2 * sigma**2))
    k = torch.outer(g, g)
    k[size // 2, size // 2] = 0.0
    return k


class MeanFieldCRF(nn.Module):
    def __init__(self, classes, iters=5, ksize=5):
        super().__init__()
        self.iters = iters
        self.register_buffer("spatial", gaussian_kernel(ksize, 1.5).expand(classes, 1, ksize, ksize).clone())
        self.w_spatial = nn.Parameter(torch.tensor(0.3))
        self.w_app = nn.Parameter(torch.tensor(0.2))
        self.compat = nn.Conv2d(classes, classes, 1, bias=False)
        with torch.no_grad():
            self.compat.weight.copy_((1 - torch.eye(classes)).view(classes, classes, 1, 1))
        self.theta = 0.5

    def appearance(self, q, img):
        k = self.spatial.shape[-1]
        pad = k // 2
        n, c, h, w = q.shape
        qp = F.unfold(q, k, padding=pad).view(n, c, k * k, h * w)
        ip = F.unfold(img, k, padding=pad).view(n, img.shape[1], k * k, h * w)
        diff = ((ip - img.flatten(2).unsqueeze(2)) ** 2).sum(1, keepdim=True)
        wts = torch.exp(-diff / (2 * self.theta**2))
        wts[:, :, k * k // 2] = 0
        return (qp * wts).sum(2).view(n, c, h, w)

    def forward(self, unary, img):
        q = unary.softmax(1)
        for _ in range(self.iters):
            sp = F.conv2d(q, self.spatial, padding=self.spatial.shape[-1] // 2, groups=q.shape[1])
            ap = self.appearance(q, img)
            msg = self.w_spatial * sp + self.w_app * ap
            q = (unary - self.compat(msg)).softmax(1)
        return q


img = torch.zeros(1, 3, 12, 12)
img[:, 0, :, :6] = 1.0
img[:, 1, 6:, :] = 1.0
truth = (img[0, 0] > 0).long() + (img[0, 1] > 0).long()
noise = torch.randn(1, C, 12, 12) * 2.0
unary = F.one_hot(truth, C).permute(2, 0, 1).unsqueeze(0).float() * 1.0 + noise
crf = MeanFieldCRF(C)
print(crf)
print("buffers", [n for n, _ in crf.named_buffers()], crf.spatial.shape, r(crf.spatial[0, 0].sum()))
q = crf(unary, img)
acc0 = (unary.argmax(1)[0] == truth).float().mean()
acc1 = (q.argmax(1)[0] == truth).float().mean()
print("accuracy before/after", r(acc0), r(acc1))
print("q sums", q.sum(1).min().item() > 0.9999, r(q.max()), q.grad_fn.name())

loss = F.nll_loss(q.clamp_min(1e-8).log(), truth[None])
loss.backward()
print("loss", r(loss), "grads", r(crf.w_spatial.grad), r(crf.w_app.grad), r(crf.compat.weight.grad.abs().sum()))
print("spatial buffer grad", crf.spatial.grad)

opt = torch.optim.Adam(crf.parameters(), lr=0.1)
for it in range(3):
    opt.zero_grad()
    loss = F.nll_loss(crf(unary, img).clamp_min(1e-8).log(), truth[None])
    loss.backward()
    opt.step()
    print("iter", it, r(loss), r(crf.w_spatial), r(crf.w_app))

sd = crf.state_dict()
print("state keys", list(sd.keys()))
crf2 = MeanFieldCRF(C, iters=1)
print(crf2.load_state_dict(sd))
e = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print("entropy", r(-(q * q.clamp_min(1e-12).log()).sum(1).mean()), r(torch.special.entr(q).sum(1).mean()))
print("logsumexp", torch.logsumexp(e, dim=1).round(decimals=4).tolist(), r(math.log(math.exp(2) + math.exp(3))))

for bad in [
    lambda: F.conv2d(q, crf.spatial, padding=2, groups=2),
    lambda: F.conv2d(q, crf.spatial[:, :, :4], padding="same", groups=3).shape,
    lambda: crf(unary, img[:, :, :10]),
    lambda: crf.load_state_dict({"w_app": torch.tensor(1.0)}),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
