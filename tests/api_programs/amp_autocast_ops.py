"""torch.autocast('cpu', dtype=torch.bfloat16) op by op, as mixed-precision code meets it: the lower-precision list
(linear, conv1d/2d/3d and transposed convs, mm/bmm/baddbmm/addmm/addbmm/matmul, prelu, scaled_dot_product_attention),
the float32 list (losses, prod, cdist, linalg, replication/reflection padding, grid_sample), the ops that promote
(cat, stack) and the ones left alone (softmax, relu, add) with their output dtypes and rounded values; float64 inputs
never cast, nested autocast(enabled=False), the decorator form, is_autocast_enabled/get_autocast_dtype."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(name, t):
    t = t[0] if isinstance(t, tuple) else t
    print(f"{name:<22} {str(t.dtype):<15} {tuple(t.shape)} sum={t.double().sum().item():.4f}")


x = torch.randn(4, 8)
w = torch.randn(6, 8)
b = torch.randn(6)
img = torch.randn(2, 3, 8, 8)
seq = torch.randn(2, 3, 10)
vol = torch.randn(1, 2, 4, 4, 4)
conv1, conv2, conv3 = nn.Conv1d(3, 4, 3), nn.Conv2d(3, 4, 3, padding=1), nn.Conv3d(2, 3, 2)
deconv1, deconv2 = nn.ConvTranspose1d(3, 2, 3, stride=2), nn.ConvTranspose2d(3, 2, 2, stride=2)
prelu = nn.PReLU(3)
A, B = torch.randn(3, 4, 5), torch.randn(3, 5, 2)
M = torch.randn(4, 2)

print("outside:", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("inside:", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"), torch.is_autocast_enabled())
    print("-- lower precision")
    show("F.linear", F.linear(x, w, b))
    show("conv1d", conv1(seq))
    show("conv2d", conv2(img))
    show("conv3d", conv3(vol))
    show("conv_transpose1d", deconv1(seq))
    show("conv_transpose2d", deconv2(img))
    show("prelu", prelu(img))
    show("mm", torch.mm(x, w.t()))
    show("matmul", x @ w.t())
    show("bmm", torch.bmm(A, B))
    show("baddbmm", torch.baddbmm(torch.zeros(3, 4, 2), A, B, beta=0.5, alpha=2.0))
    show("addmm", torch.addmm(M, A[0], B[0]))
    show("addbmm", torch.addbmm(M, A, B))
    show("matmul broadcast", torch.matmul(A, B[0]))
    q = torch.randn(1, 2, 5, 4)
    show("sdpa", F.scaled_dot_product_attention(q, q, q, is_causal=True))
    print("-- float32")
    y = torch.randint(0, 6, (4,))
    logits = F.linear(x, w, b)
    for name, fn in [
        ("cross_entropy", lambda: F.cross_entropy(logits, y)),
        ("nll_loss", lambda: F.nll_loss(logits.log_softmax(-1), y)),
        ("mse_loss", lambda: F.mse_loss(logits, torch.zeros(4, 6))),
        ("l1_loss", lambda: F.l1_loss(logits, torch.ones(4, 6))),
        ("smooth_l1_loss", lambda: F.smooth_l1_loss(logits, torch.zeros(4, 6))),
        ("huber_loss", lambda: F.huber_loss(logits, torch.zeros(4, 6), delta=0.5)),
        ("bce_with_logits", lambda: F.binary_cross_entropy_with_logits(logits, torch.ones(4, 6) * 0.5)),
        ("kl_div", lambda: F.kl_div(logits.log_softmax(-1), torch.full((4, 6), 1 / 6), reduction="batchmean")),
        ("soft_margin", lambda: F.soft_margin_loss(logits, torch.ones(4, 6))),
        ("prod", lambda: logits.prod(dim=1)),
        ("cdist", lambda: torch.cdist(x, w)),
        ("linalg.norm", lambda: torch.linalg.norm(logits, dim=1)),
        ("inverse", lambda: torch.inverse(torch.eye(3) * 2 + 0.1)),
        ("replication_pad1d", lambda: F.pad(logits.unsqueeze(0), (1, 1), mode="replicate")),
        ("reflection_pad2d", lambda: F.pad(img, (1, 1, 1, 1), mode="reflect")),
    ]:
        show(name, fn())
    print("logits dtype", logits.dtype, "loss", round(F.cross_entropy(logits, y).item(), 2))
    print("-- unlisted and promoting")
    h = conv2(img)
    show("relu", torch.relu(h))
    show("softmax", h.softmax(1))
    show("add fp32+bf16", h + img[:, :1])
    show("mul by python float", h * 0.5)
    show("cat", torch.cat([h, img[:, :1]], 1))
    show("stack", torch.stack([x, F.linear(x, w[:8, :], None)[:, :4].repeat(1, 2)]))
    show("sum", h.sum())
    show("mean", h.mean(dim=(2, 3)))
    show("layer_norm", F.layer_norm(h, (8,)))
    show("max_pool2d", F.max_pool2d(h, 2))
    show("avg_pool2d", F.avg_pool2d(h, 2))
    print("-- float64 stays")
    show("linear f64", F.linear(x.double(), w.double()))
    show("mm f64 x f32", torch.mm(x.double(), w.double().t()))
    print("-- nested")
    with torch.autocast("cpu", enabled=False):
        print("disabled inside:", torch.is_autocast_enabled("cpu"))
        show("linear disabled", F.linear(x, w, b))
        show("mm of bf16 inputs", torch.mm(h[0, 0], h[0, 1]))
    with torch.autocast("cpu", dtype=torch.float16):
        print("fp16 nested:", torch.get_autocast_dtype("cpu"))
        show("linear fp16", F.linear(x, w, b))
    print("restored:", torch.get_autocast_dtype("cpu"), torch.is_autocast_enabled("cpu"))
print("after:", torch.is_autocast_enabled("cpu"))


@torch.autocast("cpu", dtype=torch.bfloat16)
def head(inp):
    return F.linear(inp, w, b)


out = head(x)
print("decorated:", out.dtype, out[0])
print("plain:", F.linear(x, w, b)[0])
print("max diff vs fp32:", round((out.float() - F.linear(x, w, b)).abs().max().item(), 2))

# gradients come back in each leaf's own dtype
lin = nn.Linear(8, 6)
xr = x.clone().requires_grad_()
with torch.autocast("cpu", dtype=torch.bfloat16):
    z = lin(xr)
    loss = F.mse_loss(z, torch.zeros(4, 6))
loss.backward()
print("z", z.dtype, "loss", loss.dtype, z.grad_fn.name())
print("grads:", lin.weight.grad.dtype, xr.grad.dtype, lin.bias.grad.dtype)
print("bias grad:", lin.bias.grad)
