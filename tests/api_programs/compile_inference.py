"""Inference with torch.compile and TorchScript as deployment code writes it: a compiled encoder under
no_grad / inference_mode with growing sequence lengths (dynamic=True), greedy decoding through a compiled
step function, outputs kept across calls, nn.Module.compile() in place, model.forward replaced by a compiled
forward, torch.jit.script / torch.jit.trace of functions and modules compared against eager."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def init_(m, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    return m


class TinyLM(nn.Module):
    def __init__(self, vocab=11, d=8, heads=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(16, d))
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        L = ids.shape[1]
        h = self.emb(ids) + self.pos[:L]
        mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        return self.head(self.norm(h + a))


lm = init_(TinyLM(), 1).eval()
clm = torch.compile(lm, dynamic=True)
ids = torch.tensor([[1, 4, 2], [3, 3, 7]])
with torch.no_grad():
    ref = lm(ids)
    outs = [clm(ids) for _ in range(3)]
print("lm", tuple(outs[0].shape), r(outs[2][0, -1]), all(torch.allclose(o, ref, atol=1e-5) for o in outs))
print("kept", outs[0] is not outs[1], torch.equal(outs[0], outs[2]), outs[0].requires_grad)


# greedy decoding: the sequence grows by one token per call
@torch.compile(dynamic=True)
def next_token(model, ids, temperature: float = 1.0):
    logits = model(ids)[:, -1] / temperature
    probs = F.softmax(logits, dim=-1)
    return probs.argmax(-1, keepdim=True), probs.max(-1).values


seq = torch.tensor([[1], [5]])
scores = []
with torch.inference_mode():
    for _ in range(6):
        tok, p = next_token(lm, seq, 0.7)
        seq = torch.cat([seq, tok], dim=1)
        scores.append(p)
print("decoded", seq.tolist())
print("scores", [r(s, 2) for s in scores[:3]], scores[0].is_inference())
with torch.no_grad():
    eager_seq = torch.tensor([[1], [5]])
    for _ in range(6):
        eager_seq = torch.cat([eager_seq, (lm(eager_seq)[:, -1] / 0.7).softmax(-1).argmax(-1, keepdim=True)], 1)
print("decode_matches_eager", torch.equal(seq, eager_seq))

# the compiled module shares everything with the original; an in-place weight update is seen next call
with torch.no_grad():
    lm.head.bias.add_(0.5)
    print("after_bias_update", torch.allclose(clm(ids), lm(ids), atol=1e-5), r(clm(ids)[1, 0], 3))
print("grad_mode_call", clm(ids).requires_grad, clm(ids).grad_fn is not None)


# nn.Module.compile() in place, and forward replaced by a compiled forward
class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


net = init_(ConvNet(), 2)
with torch.no_grad():
    net.bn.running_mean.copy_(T(4) * 0.1)
    net.bn.running_var.copy_(torch.rand(4) * 0 + 1.5)
net.eval()
imgs = [T(b, 2, 5, 5) for b in (1, 3, 3, 2)]
with torch.no_grad():
    eager_out = [net(x) for x in imgs]
net.compile(mode="max-autotune")
print("inplace_keys", list(net.state_dict().keys())[:3], type(net).__name__)
with torch.no_grad():
    comp_out = [net(x) for x in imgs]
print("inplace", [tuple(o.shape) for o in comp_out], all(torch.allclose(a, b, atol=1e-5)
                                                          for a, b in zip(eager_out, comp_out)), r(comp_out[1], 3))

net2 = init_(ConvNet(), 2).eval()
net2.forward = torch.compile(net2.forward, backend="aot_eager")
with torch.no_grad():
    print("forward_attr", r(net2(imgs[0])), type(net2).__name__, list(net2.state_dict().keys())[-2:])


# TorchScript: script and trace of plain functions and modules (the results users rely on)
@torch.jit.script
def swish_norm(x, eps: float = 1e-5):
    y = x * torch.sigmoid(x)
    return y / (y.pow(2).sum(-1, keepdim=True).sqrt() + eps)


xs = T(2, 4)
sw = xs * xs.sigmoid()
print("script_fn", r(swish_norm(xs)), torch.allclose(swish_norm(xs, 1e-3), sw / (sw.norm(dim=-1, keepdim=True) + 1e-3)))
print("is_scripting", torch.jit.is_scripting(), torch.jit.is_tracing())

head = init_(nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)), 3)
scripted = torch.jit.script(head)
traced = torch.jit.trace(head, torch.zeros(1, 4))
with torch.no_grad():
    e, s, t = head(xs), scripted(xs), traced(xs)
print("script_mod", r(s), torch.allclose(e, s), torch.allclose(e, t))
print("script_keys", list(scripted.state_dict().keys()), list(traced.state_dict().keys()) == list(head.state_dict()))
print("script_params", [tuple(p.shape) for p in scripted.parameters()], scripted.training)
traced_fn = torch.jit.trace(lambda a, b: (a @ b.t()).relu(), (torch.ones(2, 3), torch.ones(4, 3)))
print("trace_fn", r(traced_fn(xs[:, :3], T(3, 3))), traced_fn(torch.ones(5, 3), torch.ones(2, 3)).shape)
