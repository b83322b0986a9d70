"""Deployment of a volumetric segmenter: test-time augmentation over the 8 flip combinations and in-plane rot90
with their inverses, ensembling softmax outputs of several checkpoints, channels_last_3d inputs, inference_mode,
a traced model and a scripted post-processing function with their outputs checked, and the state_dict surgery of
loading a 1-channel model into a 2-channel one."""

import itertools

import torch
import torch.nn as nn

torch.manual_seed(0)


class Seg(nn.Module):
    def __init__(self, cin=1, ncls=3):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv3d(cin, 6, 3, padding=1),
            nn.InstanceNorm3d(6, affine=True),
            nn.LeakyReLU(0.01),
            nn.Conv3d(6, 6, 3, padding=1),
            nn.LeakyReLU(0.01),
        )
        self.head = nn.Conv3d(6, ncls, 1)

    def forward(self, x):
        return self.head(self.body(x))


models = [Seg().eval() for _ in range(3)]
x = torch.randn(1, 1, 6, 8, 8)


def tta(model, x):
    acc = torch.zeros(1, 3, *x.shape[2:])
    n = 0
    for r in range(1, 4):
        for dims in itertools.combinations((2, 3, 4), r):
            acc += model(x.flip(dims)).softmax(1).flip(dims)
            n += 1
    acc += model(x).softmax(1)
    n += 1
    for k in (1, 2, 3):
        acc += torch.rot90(model(torch.rot90(x, k, (3, 4))).softmax(1), -k, (3, 4))
        n += 1
    return acc / n, n


with torch.inference_mode():
    probs, n = tta(models[0], x)
    plain = models[0](x).softmax(1)
    ens = torch.stack([tta(m, x)[0] for m in models]).mean(0)
print("tta passes", n, tuple(probs.shape), torch.allclose(probs.sum(1), torch.ones(1, 6, 8, 8), atol=1e-5))
print(
    "tta vs plain",
    round((probs - plain).abs().max().item(), 3) < 1,
    "agree",
    (probs.argmax(1) == plain.argmax(1)).float().mean().item() > 0.5,
)
print("ensemble", tuple(ens.shape), ens.requires_grad, torch.is_inference(ens), round(ens.sum().item(), 3))
try:
    ens.requires_grad_()
except Exception as e:
    print(type(e).__name__, e)

cl = x.to(memory_format=torch.channels_last_3d)
print("channels_last_3d", cl.stride(), cl.is_contiguous(memory_format=torch.channels_last_3d), cl.is_contiguous())
with torch.no_grad():
    out_cl = models[0](cl)
    out = models[0](x)
print("cl output", torch.allclose(out_cl, out, atol=1e-5), out_cl.is_contiguous(memory_format=torch.channels_last_3d))
try:
    x[0].to(memory_format=torch.channels_last_3d)
except Exception as e:
    print(type(e).__name__, e)

traced = torch.jit.trace(models[0], x)
with torch.no_grad():
    print("traced", torch.allclose(traced(x), out, atol=1e-6), type(traced).__name__)
with torch.no_grad():
    print("traced batch", tuple(traced(torch.randn(2, 1, 4, 4, 4)).shape), traced.training)


@torch.jit.script
def postprocess(logits: torch.Tensor, thr: float = 0.5) -> torch.Tensor:
    p = torch.softmax(logits, dim=1)
    fg = 1.0 - p[:, 0]
    return (fg > thr).to(torch.uint8)


mask = postprocess(out)
print("scripted", mask.dtype, tuple(mask.shape), mask.sum().item(), postprocess(out, 0.9).sum().item())

sd = models[0].state_dict()
print("keys", list(sd)[:3], sd["body.0.weight"].shape)
two = Seg(cin=2)
new_sd = {k: v for k, v in sd.items()}
w = sd["body.0.weight"]
new_sd["body.0.weight"] = torch.cat([w, w], dim=1) / 2
print(two.load_state_dict(new_sd, strict=True))
with torch.no_grad():
    y2 = two(torch.cat([x, x], 1))
print("channel surgery", torch.allclose(y2, out, atol=1e-5))
bad_sd = dict(sd)
try:
    two.load_state_dict(bad_sd)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
    print(str(e).splitlines()[1].strip())
res = two.load_state_dict({k: v for k, v in new_sd.items() if not k.startswith("head")}, strict=False)
print("non-strict", res.missing_keys, res.unexpected_keys)
