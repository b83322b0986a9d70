"""SAGAN/BigGAN pieces as their PyTorch ports write them: a self-attention block with max_pool2d'd keys and a zero
gamma, spectral-normalised convs and embeddings, hierarchical latents split with torch.split across blocks, a shared
class embedding feeding conditional BatchNorm, BigGAN's orthogonal regularisation, the projection head, and
per-block parameter counting."""

import torch
import torch.nn as nn

F = torch.nn.functional
SN = nn.utils.spectral_norm
torch.manual_seed(0)


class Attention(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.ch = ch
        self.theta = SN(nn.Conv2d(ch, ch // 8, 1, bias=False))
        self.phi = SN(nn.Conv2d(ch, ch // 8, 1, bias=False))
        self.g = SN(nn.Conv2d(ch, ch // 2, 1, bias=False))
        self.o = SN(nn.Conv2d(ch // 2, ch, 1, bias=False))
        self.gamma = nn.Parameter(torch.tensor(0.0), requires_grad=True)

    def forward(self, x):
        theta = self.theta(x)
        phi = F.max_pool2d(self.phi(x), [2, 2])
        g = F.max_pool2d(self.g(x), [2, 2])
        theta = theta.view(-1, self.ch // 8, x.shape[2] * x.shape[3])
        phi = phi.view(-1, self.ch // 8, x.shape[2] * x.shape[3] // 4)
        g = g.view(-1, self.ch // 2, x.shape[2] * x.shape[3] // 4)
        beta = F.softmax(torch.bmm(theta.transpose(1, 2), phi), -1)
        o = self.o(torch.bmm(g, beta.transpose(1, 2)).view(-1, self.ch // 2, x.shape[2], x.shape[3]))
        return self.gamma * o + x, beta


class CCBN(nn.Module):
    def __init__(self, out_size, in_size):
        super().__init__()
        self.gain = SN(nn.Linear(in_size, out_size, bias=False))
        self.bias = SN(nn.Linear(in_size, out_size, bias=False))
        self.register_buffer("stored_mean", torch.zeros(out_size))
        self.register_buffer("stored_var", torch.ones(out_size))

    def forward(self, x, y):
        gain = (1 + self.gain(y)).view(y.size(0), -1, 1, 1)
        bias = self.bias(y).view(y.size(0), -1, 1, 1)
        out = F.batch_norm(x, self.stored_mean, self.stored_var, None, None, self.training, 0.1, 1e-4)
        return out * gain + bias


def ortho(model, strength=1e-4, blacklist=()):
    with torch.no_grad():
        for param in model.parameters():
            if len(param.shape) < 2 or any(param is item for item in blacklist):
                continue
            w = param.view(param.shape[0], -1)
            grad = 2 * torch.mm(torch.mm(w, w.t()) * (1.0 - torch.eye(w.shape[0], device=w.device)), w)
            param.grad.data += strength * grad.view(param.shape)


att = Attention(16)
x = torch.randn(2, 16, 4, 4)
y, beta = att(x)
print("attention", tuple(y.shape), tuple(beta.shape), round(beta.sum(-1).mean().item(), 4), torch.equal(y, x))
with torch.no_grad():
    att.gamma.fill_(0.5)
y, _ = att(x)
print("gamma 0.5", round((y - x).abs().mean().item(), 4), att.gamma.shape, att.gamma.dim())
print("sn buffers", sorted(k for k in att.state_dict() if k.startswith("theta")))

# Hierarchical latents: z split into chunks, each concatenated with the shared class embedding.
dim_z, n_blocks = 12, 3
z = torch.randn(2, dim_z)
zs = torch.split(z, dim_z // (n_blocks + 1), 1)
print("chunks", len(zs), [tuple(c.shape) for c in zs])
zs2 = z.chunk(n_blocks + 1, dim=1)
print("split == chunk", all(torch.equal(a, b) for a, b in zip(zs, zs2)))
print(
    "uneven split",
    [c.shape[1] for c in torch.split(z, [5, 4, 3], dim=1)],
    [c.shape[1] for c in z.tensor_split(5, dim=1)],
)
shared = nn.Embedding(10, 6)
yc = shared(torch.tensor([3, 7]))
ys = [torch.cat([yc, item], 1) for item in zs[1:]]
print("ys", [tuple(t.shape) for t in ys])
bn = CCBN(8, 9)
h = torch.randn(2, 8, 4, 4)
out = bn(h, ys[0])
print("ccbn", tuple(out.shape), round(out.mean().item(), 4), bn.stored_mean.round(decimals=4)[:3].tolist())
bn.eval()
print("ccbn eval", round(bn(h, ys[0]).std().item(), 4))

# Orthogonal regularisation added to the gradients after backward.
lin = nn.Linear(6, 4)
blacklist = [lin.bias]
lin(torch.randn(3, 6)).sum().backward()
before = lin.weight.grad.clone()
ortho(lin, 1e-2, blacklist)
print("ortho delta", round((lin.weight.grad - before).abs().sum().item(), 6), lin.bias.grad.tolist() == [3.0] * 4)
W = lin.weight
print(
    "ortho loss",
    round(((W @ W.T) * (1 - torch.eye(4))).square().sum().item(), 4),
    round(torch.dist(W @ W.T, torch.eye(4)).item(), 4),
)

# Projection discriminator head with SN embedding; counting parameters per block.
embed = SN(nn.Embedding(10, 16))
hD = torch.randn(2, 16)
proj = torch.sum(embed(torch.tensor([3, 7])) * hD, 1, keepdim=True)
print("projection", proj.round(decimals=4).view(-1).tolist())
print("per block", {n: sum(p.numel() for p in m.parameters()) for n, m in att.named_children()})
print("total", sum(p.numel() for p in att.parameters() if p.requires_grad))

try:
    Attention(16)(torch.randn(2, 16, 3, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bmm(torch.randn(2, 3, 4), torch.randn(2, 5, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.split(z, [5, 5], dim=1)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.batch_norm(h, torch.zeros(8), None, training=False)
except Exception as e:
    print(type(e).__name__, e)
