"""Classifier-free guidance as diffusion repos write it: a class-conditional denoiser with a learned null token,
label dropout through torch.where, doubled batches split with chunk, guidance scale sweeps, guidance rescale
(std-matching), CFG on v-predictions and on autoregressive logits, and classifier guidance via autograd.grad."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def det_init_(module, scale=0.25):
    with torch.no_grad():
        for k, (name, p) in enumerate(module.named_parameters()):
            p.copy_(scale * torch.cos(torch.arange(p.numel(), dtype=p.dtype) * (0.37 + 0.05 * k)).view_as(p))


class CondDenoiser(nn.Module):
    def __init__(self, dim=6, num_classes=4, hidden=24, emb=8):
        super().__init__()
        self.num_classes = num_classes
        self.label_emb = nn.Embedding(num_classes + 1, emb)  # last row: the null / unconditional token
        self.time_mlp = nn.Sequential(nn.Linear(1, emb), nn.GELU(), nn.Linear(emb, emb))
        self.net = nn.Sequential(nn.Linear(dim + emb, hidden), nn.SiLU(), nn.LayerNorm(hidden),
                                 nn.Linear(hidden, dim))

    def forward(self, x, t, y):
        c = self.label_emb(y) + self.time_mlp(t.float().unsqueeze(-1) / 1000)
        return self.net(torch.cat([x, c], dim=-1))


model = CondDenoiser()
det_init_(model)
print(model)
print("params", sum(p.numel() for p in model.parameters()), "null row", r(model.label_emb.weight[-1], 4))

# label dropout during training: replace labels with the null index with probability p_uncond
B = 8
x = torch.sin(torch.arange(B * 6, dtype=torch.float32).reshape(B, 6) * 0.3)
y = torch.arange(B) % 4
drop_u = torch.linspace(0, 1, B)
y_train = torch.where(drop_u < 0.2, torch.full_like(y, model.num_classes), y)
print("y", y.tolist(), "->", y_train.tolist(), y_train.dtype)
t = torch.linspace(10, 900, B).long()
noise = torch.cos(torch.arange(B * 6, dtype=torch.float32).reshape(B, 6) * 0.7)
pred = model(x, t, y_train)
loss = F.mse_loss(pred, noise)
loss.backward()
print("train loss", round(loss.item(), 4), "null-emb grad", r(model.label_emb.weight.grad[-1], 4),
      "class3 grad zero", bool((model.label_emb.weight.grad[3] == 0).all()))


@torch.no_grad()
def cfg_eps(model, x, t, y, scale):
    x_in = torch.cat([x, x])
    t_in = torch.cat([t, t])
    y_in = torch.cat([y, torch.full_like(y, model.num_classes)])
    eps_c, eps_u = model(x_in, t_in, y_in).chunk(2)
    return eps_u + scale * (eps_c - eps_u), eps_c, eps_u


for s in [0.0, 1.0, 3.0, 7.5]:
    g, c, u = cfg_eps(model, x[:2], t[:2], y[:2], s)
    print(f"scale {s:3.1f}", r(g, 4), "==cond" if torch.allclose(g, c) else "==uncond" if torch.equal(g, u) else "")


def rescale_noise_cfg(noise_cfg, noise_pred_text, guidance_rescale=0.0):
    std_text = noise_pred_text.std(dim=list(range(1, noise_pred_text.ndim)), keepdim=True)
    std_cfg = noise_cfg.std(dim=list(range(1, noise_cfg.ndim)), keepdim=True)
    noise_pred_rescaled = noise_cfg * (std_text / std_cfg)
    return guidance_rescale * noise_pred_rescaled + (1 - guidance_rescale) * noise_cfg


g, c, u = cfg_eps(model, x, t, y, 7.5)
resc = rescale_noise_cfg(g, c, 0.7)
print("std cond", r(c.std(1), 4), "\nstd cfg", r(g.std(1), 4), "\nstd resc", r(resc.std(1), 4))

# guidance on a v-prediction with per-sample scales (broadcast as [B, 1])
scales = torch.tensor([1.0, 2.0, 4.0, 8.0, 1.0, 2.0, 4.0, 8.0]).view(-1, 1)
v_c, v_u = c, u
v = torch.lerp(v_u, v_c, scales)
print("lerp==formula", torch.allclose(v, v_u + scales * (v_c - v_u), atol=1e-6), r(v[3], 4))

# classifier-free guidance on autoregressive logits (in log-prob space)
logits_c = torch.tensor([[2.0, 1.0, 0.1, -1.0, 0.5]])
logits_u = torch.tensor([[1.5, 1.2, 0.3, -0.5, 0.4]])
lp_c, lp_u = F.log_softmax(logits_c, -1), F.log_softmax(logits_u, -1)
for s in [1.0, 1.5, 3.0]:
    mixed = lp_u + s * (lp_c - lp_u)
    probs = mixed.softmax(-1)
    print(f"ar cfg {s}", probs, "argmax", probs.argmax(-1).item())


# classifier guidance: grad of log p(y | x_t) wrt x_t scaled into eps
classifier = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 4))
det_init_(classifier, 0.5)


def cond_fn(x, y, scale):
    with torch.enable_grad():
        x_in = x.detach().requires_grad_(True)
        logits = classifier(x_in)
        log_probs = F.log_softmax(logits, dim=-1)
        selected = log_probs[range(len(logits)), y.view(-1)]
        return torch.autograd.grad(selected.sum(), x_in)[0] * scale


with torch.no_grad():
    grad = cond_fn(x[:3], y[:3], 2.0)
    print("cond grad", grad.shape, r(grad[0], 6), grad.requires_grad)
    sqrt_1m_ab = torch.tensor([0.3, 0.6, 0.9]).view(-1, 1)
    eps = model(x[:3], t[:3], y[:3])
    eps_guided = eps - sqrt_1m_ab * grad
    print("eps guided", r(eps_guided[2], 6))
    before = F.log_softmax(classifier(x[:3]), -1).gather(1, y[:3, None]).squeeze(1)
    after = F.log_softmax(classifier(x[:3] + 0.05 * grad), -1).gather(1, y[:3, None]).squeeze(1)
    print("log p(y|x) rises", (after > before).tolist(), r(after - before, 3))

# a guidance interval: apply CFG only for t within [lo, hi]
ts = torch.tensor([50, 300, 600, 950])
active = (ts >= 200) & (ts <= 800)
scale_t = torch.where(active, torch.tensor(4.0), torch.tensor(1.0))
print("interval", active.tolist(), scale_t, scale_t.dtype)
