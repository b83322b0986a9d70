"""Version counters and views as autograd-aware library code meets them: ._version after each in-place op and
through t()/mT/permute/unfold/narrow/split/chunk/unbind/diagonal views, ._base and _is_view(), writes through
views reaching the base, the 'modified by an inplace operation' error naming the version, in-place on a leaf and
on a view of a leaf, unbind/split outputs refusing in-place, detach() and .data differences, and no_grad writes."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def attempt(name, fn):
    try:
        out = fn()
        print(f"{name}: ok {out if not isinstance(out, torch.Tensor) else tuple(out.shape)}")
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


base = torch.zeros(4, 6)
views = {
    "t": base.t(), "mT": base.mT, "permute": base.permute(1, 0), "unfold": base.unfold(1, 2, 2),
    "narrow": base.narrow(1, 1, 3), "split[1]": base.split(2)[1], "chunk[0]": base.chunk(3, 1)[0],
    "unbind[2]": base.unbind(0)[2], "diagonal": base.diagonal(), "view": base.view(24), "select": base[1],
    "slice step": base[:, ::2], "expand": base[:1].expand(3, 6), "unsqueeze": base.unsqueeze(0),
}
for name, v in views.items():
    print(f"{name:10s} is_view={v._is_view()} base_ok={v._base is base} stride={v.stride()} "
          f"off={v.storage_offset()} version={v._version}")

print("base version:", base._version)
views["t"][0, 1] = 1.0
views["narrow"].add_(0.5)
views["unbind[2]"].fill_(7.0)
views["diagonal"].mul_(2.0)
views["unfold"][0, 2, 1] = -3.0
print("after writes, base version:", base._version, "view versions:",
      views["t"]._version, views["chunk[0]"]._version)
print(base)
print("view of view base:", base.t()[1:]._base is base, base.t()[1:]._is_view())
print("contiguous() of non-contiguous is a copy:", views["t"].contiguous()._base is None)
print("clone has no base:", base.clone()._base is None, "detach base:", base.detach()._base is None)

# saved tensors and versions
x = torch.randn(3, requires_grad=True)
y = x.sigmoid()
print("y version before:", y._version)
y.mul_(2)
print("y version after mul_:", y._version)
attempt("backward through modified sigmoid", lambda: y.sum().backward())
x2 = torch.randn(3, requires_grad=True)
z = x2 * 2
w = z.exp()
z.add_(1)  # exp saved its result, not z
w.sum().backward()
print("exp saved its output, z's write is fine:", x2.grad)
a = torch.randn(3, requires_grad=True)
b = a * 1
p = b.pow(2)
b[0] = 0.0
attempt("pow saved its input", lambda: p.sum().backward())

# in-place on leaves and views of leaves
leaf = torch.randn(3, requires_grad=True)
attempt("leaf.add_", lambda: leaf.add_(1))
attempt("leaf[0] = 1", lambda: leaf.__setitem__(0, 1.0))
attempt("view of leaf .mul_", lambda: leaf[:2].mul_(2))
with torch.no_grad():
    leaf.add_(1)
    leaf[:2].mul_(2)
print("no_grad writes allowed, version:", leaf._version)
nl = leaf * 1
nl[:2].mul_(3)
print("view of non-leaf in-place grad_fn:", type(nl.grad_fn).__name__)
nl.sum().backward()
print("grad through CopySlices:", leaf.grad)

# multi-output views refuse in-place
m = torch.randn(4, 2, requires_grad=True).clone()
parts = m.unbind(0)
attempt("unbind output .mul_", lambda: parts[0].mul_(2))
chunks = m.split(2)
attempt("split output .add_", lambda: chunks[1].add_(1))
chunks_nograd = torch.randn(4, 2).split(2)
chunks_nograd[0].add_(1)
print("split output in-place without grad: ok, version", chunks_nograd[0]._version)

# detach vs .data
q = torch.ones(3, requires_grad=True)
r = q * 3
s = r.exp()
r.detach().zero_()
attempt("detach().zero_() then backward", lambda: s.sum().backward())
q2 = torch.ones(3, requires_grad=True)
r2 = q2 * 3
s2 = r2 * r2
r2.data.zero_()
s2.sum().backward()
print(".data.zero_() bypasses the check, grad:", q2.grad)
print("versions: detach shares", r.detach()._version == r._version, ", .data has its own", r2.data._version)

# out= and version
o = torch.empty(3)
v0 = o._version
torch.mul(torch.ones(3), 2, out=o)
torch.add(o, 1, out=o)
print("out= bumps:", o._version - v0, o)
with torch.inference_mode():
    inf = torch.ones(2)
attempt("inference tensor _version", lambda: inf._version)
attempt("in-place on inference tensor outside", lambda: inf.add_(1))
