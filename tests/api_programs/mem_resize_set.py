"""In-place storage surgery as library code performs it: resize_ growing and shrinking (storage nbytes before and
after, kept prefix values), resize_ on a view and with memory_format, resize_as_, set_ onto another tensor's storage
with offset, size and stride, set_() to empty, as_strided_ rewriting geometry in place, share_memory_/is_shared,
_version counting for in-place ops, and the errors PyTorch raises for resizing tensors that need grad."""

import torch

torch.manual_seed(0)
CL = torch.channels_last
torch.set_printoptions(precision=4)


def info(name, t, version=True):
    v = f" v={t._version}" if version else ""
    print(f"{name}: shape={tuple(t.shape)} stride={t.stride()} off={t.storage_offset()} "
          f"storage={t.untyped_storage().nbytes()}{v}")


def attempt(name, fn):
    try:
        out = fn()
        print(f"{name}: ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


a = torch.arange(6.0)
info("a", a)
a.resize_(2, 3)
info("resize_(2, 3)", a)
print(a)
a.resize_(4)
info("resize_(4) shrinks view, keeps storage", a)
print(a)
a.resize_(3, 4)
info("resize_(3, 4) grows", a)
print("kept prefix:", a.flatten()[:6].tolist())
a.resize_(0)
info("resize_(0)", a)
b = torch.zeros(2, 3, 4, 5)
b.resize_(2, 3, 4, 5, memory_format=CL)
info("resize_ channels_last", b)
c = torch.empty(0)
c.resize_as_(torch.empty(3, 4).t())
info("resize_as_ of transposed", c)

# resize of a tensor that requires grad
p = torch.zeros(3, requires_grad=True)
attempt("resize_ leaf requiring grad", lambda: p.resize_(4))
with torch.no_grad():
    attempt("resize_ under no_grad", lambda: p.resize_(4))
attempt("resize_ negative", lambda: torch.zeros(3).resize_(-1))
attempt("resize_ float size", lambda: torch.zeros(3).resize_(2.0))
attempt("resize_ cl on 3-d", lambda: torch.zeros(3).resize_(1, 2, 3, memory_format=torch.channels_last))
attempt("resize_ preserve", lambda: torch.zeros(3).resize_(3, memory_format=torch.preserve_format))
same = torch.zeros(2, 3, 4, 5)
same.resize_(2, 3, 4, 5)
info("resize_ to the same sizes", same)
same.resize_(1, 3, 4, 5, memory_format=CL)
info("resize_ shrink channels_last", same)
cl_src = torch.empty(2, 3, 4, 5, memory_format=CL)
info("resize_as_ default", torch.empty(0).resize_as_(cl_src))
info("resize_as_ preserve", torch.empty(0).resize_as_(cl_src, memory_format=torch.preserve_format))
info("resize_as_ preserve of t()", torch.empty(0).resize_as_(torch.empty(3, 4).t(),
                                                             memory_format=torch.preserve_format))
vol = torch.zeros(1, 2, 3, 4, 5)
vol.resize_(1, 2, 3, 4, 6, memory_format=torch.channels_last_3d)
info("resize_ channels_last_3d", vol)

# set_: point a tensor at another storage
src = torch.arange(10.0)
t = torch.empty(0)
t.set_(src)
info("set_(src)", t)
print("shares:", t.data_ptr() == src.data_ptr())
t.set_(src.untyped_storage(), 2, (2, 3), (3, 1))
info("set_(storage, 2, (2,3), (3,1))", t)
print(t)
t[0, 0] = -5.0
print("src after write through set_ tensor:", src.tolist())
t.set_()
info("set_()", t, version=False)
print("numel after set_():", t.numel())
u = torch.zeros(2, 2)
u.set_(src[4:].view(2, 3))
info("set_ from view", u, version=False)
print(u)

# as_strided_ in place
w = torch.arange(12.0)
w.as_strided_((3, 3), (3, 1), 1)
info("as_strided_((3,3),(3,1),1)", w)
print(w)
w.as_strided_((3,), (4,))
info("as_strided_ diag-like", w)
print(w)
print("as_strided sliding windows:", torch.arange(8.0).as_strided((3, 4), (2, 1)).tolist())
attempt("as_strided out of storage", lambda: torch.arange(4.0).as_strided((3, 3), (1, 1), 2))

# version counter
v = torch.ones(4)
info("fresh", v)
v.add_(1)
v.mul_(2)
v[0] = 7
info("after add_, mul_, setitem", v)
view = v[1:3]
view.zero_()
print("shared version: base", v._version, "view", view._version)
out = torch.empty(4)
torch.add(v, 1, out=out)
print("out= bumps version:", out._version)
print("detach shares version:", v.detach()._version == v._version)
d = v.detach()
d.fill_(3)
print("after detach fill_:", v._version, d._version)
x = torch.randn(3, requires_grad=True)
y = x.exp()
attempt("modify saved output then backward",
        lambda: (y.add_(1), y.sum().backward()))

# shared memory
s = torch.randn(3, 3)
print("is_shared before:", s.is_shared())
r = s.share_memory_()
print("share_memory_ returns self:", r is s, "is_shared:", s.is_shared())
print("view of shared is shared:", s[1].is_shared())
print("clone is shared:", s.clone().is_shared())
print("storage is_shared:", s.untyped_storage().is_shared())
print("values kept:", round(s.sum().item(), 4))
