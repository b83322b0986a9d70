"""In-place writes through views as optimizer, buffer and preprocessing code relies on them: slices, diagonals,
transposes, unbind/split/chunk pieces, .data/.detach(), view(dtype) bit tricks and real/imag views all write the
base; advanced-index results and contiguous() of non-contiguous views do not; the shared version counter (in-place
view ops like t_/unsqueeze_ count too), _base, and autograd through in-place writes on views (CopySlices), with
PyTorch's errors for expanded outputs, overlapping copies and leaves."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def attempt(name, fn):
    try:
        print(f"{name}:", fn())
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


base = torch.arange(16.0).reshape(4, 4)

# slices, steps and diagonals
b = base.clone()
b[1:3, 1:3].mul_(-1)
b[:, ::3].add_(100)
b.diagonal().fill_(0.5)
b.diagonal(offset=1).copy_(torch.tensor([7.0, 8.0, 9.0]))
print("after slice/diag writes:\n", b)
print("version:", b._version)

# transposes and pieces
b = base.clone()
b.t()[0].zero_()
print("t()[0].zero_() zeroes column 0:\n", b)
for k, piece in enumerate(b.unbind(0)):
    piece.add_(k * 1000)
print("unbind pieces:\n", b)
top, bottom = b.chunk(2)
bottom.neg_()
left, right = b.split([1, 3], dim=1)
right.div_(2)
print("chunk/split pieces:\n", b)
print("pieces' bases:", top._base is b, right._base is b, b.unbind(1)[0]._base is b)

# .data and .detach() share storage; .clone() and advanced indexing copy
w = torch.randn(3, requires_grad=True)
print("w:", w)
w.data.mul_(0.5)
w.detach()[0] = 10.0
print("w after .data/.detach writes:", w, w.requires_grad)
c = base.clone()
c[[0, 2]].fill_(-1)
c[c > 10].fill_(-1)
c.t().contiguous().fill_(-1)
c.T.reshape(-1)[:3].fill_(-1)
print("copies leave it untouched:", torch.equal(c, base))
c.view(-1)[::5].fill_(-2)
c.reshape(-1)[1] = -3
print("view/reshape of contiguous write through:\n", c)

# dtype views: bit manipulation of float32 through int32
f = torch.tensor([1.0, -2.0, 0.15625, 3.0e-38])
bits = f.view(torch.int32)
print("bits:", bits)
bits.bitwise_and_(0x7FFFFFFF)
print("abs via sign bit:", f)
exp = (bits >> 23) & 0xFF
print("exponents:", exp - 127)
z = torch.zeros(2, dtype=torch.complex64)
z.real.copy_(torch.tensor([1.0, 2.0]))
z.imag.fill_(-1.0)
print("complex via real/imag views:", z)
zr = torch.view_as_real(z)
zr[:, 1].mul_(3)
print("view_as_real write:", z)

# version counter shared by views; in-place view ops count as writes
v0 = torch.zeros(3, 4)
row = v0[1]
print("versions:", v0._version, row._version)
row.add_(1)
print("after row.add_:", v0._version, row._version)
v0.t_()
print("after t_:", v0._version, row._version, v0.shape, v0.stride())
v0.unsqueeze_(0)
print("after unsqueeze_:", v0._version, v0.shape, v0.stride())
v0.squeeze_(0)
v0[0] = 5.0
print("after squeeze_ and setitem:", v0._version, row)

# autograd through in-place writes on views: CopySlices
x = torch.randn(3, 4, requires_grad=True)
y = x.clone()
y[:, 1].mul_(2)
y[0].zero_()
y.diagonal().add_(1)
print("y grad_fn:", y.grad_fn.name())
(y * torch.arange(12.0).reshape(3, 4)).sum().backward()
print("x.grad:\n", x.grad)
a = torch.ones(4, requires_grad=True)
h = a * 2
hv = h[1:3]
hv.exp_()
print("view grad_fn after in-place:", hv.grad_fn.name(), "base:", h.grad_fn.name())
h.sum().backward()
print("a.grad:", a.grad)
p = torch.randn(2, 3, requires_grad=True)
q = p.t().clone()
q.t()[0].sigmoid_()
q.sum().backward()
print("p.grad:\n", p.grad)

# the nodes each kind of write records
n = torch.randn(3, 3, requires_grad=True).clone()
names = []
for key in (0, (slice(None), 1), torch.tensor([0, 2]), n > 0, (Ellipsis, -1)):
    n[key] = 0.5
    names.append(n.grad_fn.name())
print("setitem nodes:", names)
print("read nodes:", n[...].grad_fn.name(), n[()].grad_fn.name(), n[None].grad_fn.name(), n[[0]].grad_fn.name(),
      n[n > 0].grad_fn.name(), n[1:].grad_fn.name(), n[1].grad_fn.name())

# errors
attempt("write to expanded", lambda: torch.zeros(3).expand(2, 3).add_(1))
attempt("copy_ into expanded", lambda: torch.zeros(3, 1).expand(3, 3).copy_(torch.ones(3, 3)))
attempt("overlapping copy", lambda: (lambda t: t[1:].copy_(t[:-1]))(torch.arange(5.0)))
attempt("add_ with own transpose", lambda: (lambda t: t.add_(t.t()))(torch.arange(9.0).reshape(3, 3)))
attempt("out= overlapping input", lambda: (lambda t: torch.add(t[:3], t[1:], out=t[1:]))(torch.arange(4.0)))
attempt("leaf view in-place", lambda: torch.ones(3, requires_grad=True)[0].mul_(2))
attempt("leaf in-place", lambda: torch.ones(3, requires_grad=True).add_(1))
attempt("unbind piece under grad", lambda: torch.ones(3, 2, requires_grad=True).clone().unbind(0)[0].mul_(2))
attempt("split piece under grad", lambda: torch.ones(3, 2, requires_grad=True).clone().split(1)[0].mul_(2))


def modified_after_save():
    s = torch.ones(3, requires_grad=True)
    t = s.clone()
    u = t.sin()
    t[0] = 0.0
    u.sum().backward()


attempt("saved tensor modified", modified_after_save)
