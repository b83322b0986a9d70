"""Border handling in restoration nets: F.pad's reflect/replicate/circular/constant modes on 2-D to 5-D inputs,
negative (cropping) pads, the padding modules' reprs and arguments, reflect-padded convolutions versus
padding_mode=, gradients that fold back into the border, and the errors for pads that are too large."""

import torch

nn = torch.nn
F = torch.nn.functional

x = torch.arange(12.0).reshape(1, 1, 3, 4)

for mode in ("constant", "reflect", "replicate", "circular"):
    out = F.pad(x, (1, 2, 2, 1), mode=mode)
    print(mode, tuple(out.shape), out[0, 0].tolist())
print("value", F.pad(x, (1, 1), value=-1.5)[0, 0, 0].tolist())
print("neg", F.pad(x, (-1, 0, 1, -1))[0, 0].tolist())
print("neg reflect", F.pad(x, (-1, 1, 0, 0), mode="reflect")[0, 0].tolist())
print("neg circular", F.pad(x, (-1, 2, 0, 0), mode="circular")[0, 0].tolist())
print("1d reflect", F.pad(torch.arange(5.0).reshape(1, 1, 5), (3, 2), mode="reflect").tolist())
print("2d-unbatched reflect", F.pad(torch.arange(5.0).reshape(1, 5), (2, 2), mode="reflect").tolist())
print("3d unbatched replicate", F.pad(x[0], (1, 1, 1, 1), mode="replicate").shape)
v = torch.arange(24.0).reshape(1, 1, 2, 3, 4)
for mode in ("reflect", "replicate", "circular"):
    o = F.pad(v, (1, 1, 1, 1, 1, 1), mode=mode)
    print("5d", mode, tuple(o.shape), o.sum().item(), o[0, 0, 0, 0].tolist())
print("circular wrap twice", F.pad(torch.arange(3.0).reshape(1, 1, 3), (3, 3), mode="circular").tolist())
print("int reflect", F.pad(torch.arange(6).reshape(1, 2, 3), (1, 1), mode="reflect").tolist())
print("constant on leading dims", tuple(F.pad(x, (0, 0, 0, 0, 1, 1, 2, 0)).shape))

mods = [
    nn.ReflectionPad1d(2),
    nn.ReflectionPad2d((1, 0, 2, 1)),
    nn.ReflectionPad3d(1),
    nn.ReplicationPad1d((0, 3)),
    nn.ReplicationPad2d(1),
    nn.ReplicationPad3d((1, 1, 0, 0, 2, 2)),
    nn.ZeroPad1d(2),
    nn.ZeroPad2d((1, 1, 0, 2)),
    nn.ZeroPad3d(1),
    nn.ConstantPad1d(1, 3.5),
    nn.ConstantPad2d((0, 1, 0, 1), -1),
    nn.ConstantPad3d(1, 0.0),
    nn.CircularPad1d(1),
    nn.CircularPad2d((1, 2, 0, 1)),
    nn.CircularPad3d(1),
]
for m in mods:
    dim = 1 if "1d" in type(m).__name__ else 2 if "2d" in type(m).__name__ else 3
    inp = torch.arange(2.0 * 3**dim).reshape((1, 2) + (3,) * dim)
    out = m(inp)
    print(m, m.padding, tuple(out.shape), out.sum().item())

# conv with padding_mode vs explicit pad
torch.manual_seed(0)
for pm in ("reflect", "replicate", "circular", "zeros"):
    conv = nn.Conv2d(2, 3, 3, padding=1, padding_mode=pm, bias=False)
    img = torch.randn(1, 2, 5, 6)
    ref = F.conv2d(F.pad(img, (1, 1, 1, 1), mode="constant" if pm == "zeros" else pm), conv.weight)
    print(conv, torch.allclose(conv(img), ref, atol=1e-6))
print(nn.Conv2d(2, 2, 3, padding="same", padding_mode="reflect", dilation=2))
c = nn.Conv2d(1, 1, (3, 5), padding="same", padding_mode="circular", bias=False)
print("same circular", tuple(c(torch.randn(1, 1, 6, 7)).shape))

# gradient folds back into the border
for mode in ("reflect", "replicate", "circular"):
    g = torch.ones(1, 1, 4, requires_grad=True)
    out = F.pad(g, (2, 3), mode=mode)
    (out * torch.arange(9.0)).sum().backward()
    print("grad", mode, type(out.grad_fn).__name__, g.grad.tolist())
g = torch.ones(1, 1, 3, 3, requires_grad=True)
F.pad(g, (1, 1, 1, 1), mode="reflect").sum().backward()
print("grad2d", g.grad[0, 0].tolist())
g = torch.ones(1, 1, 3, 3, requires_grad=True)
o = F.pad(g, (1, -1, 2, 0))
o.sum().backward()
print("grad const neg", type(o.grad_fn).__name__, g.grad[0, 0].tolist())

for bad in [
    lambda: F.pad(x, (4, 0), mode="reflect"),
    lambda: F.pad(x, (0, 0, 3, 0), mode="reflect"),
    lambda: F.pad(x, (5, 0), mode="circular"),
    lambda: F.pad(x, (1,), mode="constant"),
    lambda: F.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect"),
    lambda: F.pad(x, (1, 1), mode="wrap"),
    lambda: F.pad(torch.arange(3.0), (1, 1), mode="reflect"),
    lambda: F.pad(x, (-5, 0)),
    lambda: nn.ReflectionPad2d((1, 2, 3))(x),
    lambda: F.pad(torch.zeros(2, 0, 5), (1, 1), mode="reflect"),
    lambda: F.pad(torch.zeros(0, 1, 5), (1, 1), mode="replicate"),
    lambda: F.pad(torch.ones(1, 1, 3, 3, dtype=torch.bool), (1, 1, 1, 1), mode="replicate"),
    lambda: F.pad(torch.arange(3, dtype=torch.uint8).view(1, 3), (1, 1), value=-1),
    lambda: F.pad(torch.ones(1, 3).half(), (1, 1), value=1e5),
    lambda: F.pad(x, (-4, 0, 0, 0), mode="reflect"),
    lambda: F.pad(x[0], (-2, -2), mode="replicate"),
    lambda: F.pad(torch.zeros(1, 2, 0, 3), (1, 1, 0, 0), mode="circular"),
]:
    try:
        out = bad()
        print("ok", tuple(out.shape))
    except Exception as e:
        print(type(e).__name__, e)
