"""Broadcasting and layout as array code inspects it: broadcast_tensors/shapes/to, expand_as, meshgrid in both
indexings, rot90/flip/roll, movedim/swapaxes, with the shapes, strides, contiguity and storage sharing printed."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def info(name, t):
    print(f"{name}: shape={tuple(t.shape)} stride={t.stride()} contiguous={t.is_contiguous()}")


a = torch.arange(3.0).reshape(3, 1)
b = torch.arange(4.0)
ba, bb = torch.broadcast_tensors(a, b)
info("broadcast a", ba)
info("broadcast b", bb)
print(ba + bb)
print("shares storage:", ba.data_ptr() == a.data_ptr(), bb.data_ptr() == b.data_ptr())
print("broadcast_shapes", torch.broadcast_shapes((3, 1), (4,)), torch.broadcast_shapes((2, 1, 5), (7, 1), (1,)))
print("broadcast_shapes ints", torch.broadcast_shapes(3, (2, 1)), torch.broadcast_shapes())
print("broadcast_shapes zero", torch.broadcast_shapes((0, 1), (1, 4)))
try:
    torch.broadcast_shapes((3, 2), (4,))
except RuntimeError as e:
    print("broadcast_shapes:", e)
try:
    torch.broadcast_tensors(torch.ones(2, 3), torch.ones(4))
except RuntimeError as e:
    print("broadcast_tensors:", e)
bt = torch.broadcast_to(b, (2, 3, 4))
info("broadcast_to", bt)
info("broadcast_to -1", torch.broadcast_to(a, (-1, 5)))
try:
    torch.broadcast_to(torch.ones(3), (2, 4))
except RuntimeError as e:
    print("broadcast_to:", e)
e = torch.tensor([[1.0], [2.0]]).expand_as(torch.empty(2, 3))
info("expand_as", e)
print(e)
info("expand -1 and new dims", torch.ones(3, 1).expand(2, -1, 4))
try:
    torch.ones(3).expand(2, 2)
except RuntimeError as err:
    print("expand:", err)
try:
    torch.ones(2, 3).expand(3)
except RuntimeError as err:
    print("expand fewer dims:", err)
try:
    e.add_(1)
except RuntimeError as err:
    print("in-place on expanded:", str(err).split(".")[0])
print("expanded contiguous() copies", e.contiguous().stride(), e.contiguous().data_ptr() != e.data_ptr())
# gradients through broadcasting sum back
g = torch.randn(3, 1, requires_grad=True)
(torch.broadcast_to(g, (2, 3, 4)) * torch.arange(24.0).reshape(2, 3, 4)).sum().backward()
print("broadcast_to grad", g.grad.flatten())

# meshgrid
xs = torch.tensor([1, 2, 3])
ys = torch.tensor([10, 20])
X, Y = torch.meshgrid(xs, ys, indexing="ij")
info("meshgrid ij X", X)
info("meshgrid ij Y", Y)
print(X, Y, sep="\n")
X2, Y2 = torch.meshgrid(xs, ys, indexing="xy")
info("meshgrid xy X", X2)
info("meshgrid xy Y", Y2)
print(X2, Y2, sep="\n")
print("xy is ij transposed:", torch.equal(X2, X.T), torch.equal(Y2, Y.T))
gx, gy, gz = torch.meshgrid([torch.arange(2), torch.arange(3), torch.arange(4)], indexing="xy")
print("3-d xy shapes", tuple(gx.shape), tuple(gy.shape), tuple(gz.shape))
grid = torch.stack(torch.meshgrid(torch.linspace(-1, 1, 3), torch.linspace(0, 1, 2), indexing="ij"), -1)
print("coordinate grid", grid.shape)
print(grid)
r = torch.sqrt(X.float() ** 2 + Y.float() ** 2)
print("radius", r)

# rot90 / flip / roll
m = torch.arange(6).reshape(2, 3)
print("rot90", torch.rot90(m), torch.rot90(m, 2), torch.rot90(m, -1), torch.rot90(m, 1, [1, 0]), sep="\n")
print("rot90 k=4 identity:", torch.equal(torch.rot90(m, 4), m), "k=5 == k=1:", torch.equal(m.rot90(5), m.rot90(1)))
info("rot90 result", torch.rot90(m))
img = torch.arange(24).reshape(2, 3, 4)
print("rot90 dims (1,2)", torch.rot90(img, 1, (1, 2))[0])
try:
    torch.rot90(m, 1, [0, 0])
except RuntimeError as err:
    print("rot90 same dims:", err)
try:
    torch.rot90(m, 1, [0])
except RuntimeError as err:
    print("rot90 one dim:", err)
print("flip", torch.flip(m, [0]), torch.flip(m, (0, 1)), m.fliplr(), m.flipud(), sep="\n")
info("flip result", torch.flip(m, [1]))
print("roll", torch.roll(torch.arange(5), 2), torch.roll(torch.arange(5), -1))
print("roll flat", torch.roll(m, 1))
print("roll dims", torch.roll(m, 1, 0), torch.roll(m, (1, -1), (0, 1)), sep="\n")
print("roll large shift", torch.roll(torch.arange(5), 12))
try:
    torch.roll(m, (1, 2), (0,))
except RuntimeError as err:
    print("roll mismatch:", err)
fg = torch.randn(2, 3, requires_grad=True)
(torch.roll(torch.flip(fg, [1]), 1, 0) * torch.arange(6.0).reshape(2, 3)).sum().backward()
print("flip+roll grad", fg.grad)
print("grad_fns", torch.flip(fg, [0]).grad_fn.name(), torch.roll(fg, 1, 0).grad_fn.name(),
      torch.rot90(fg).grad_fn.name())

# movedim / swapaxes / permute
t = torch.randn(2, 3, 4, 5)
info("movedim(1, -1)", torch.movedim(t, 1, -1))
info("movedim((0, 1), (2, 3))", t.movedim((0, 1), (2, 3)))
info("moveaxis", torch.moveaxis(t, -1, 0))
info("swapaxes(0, 2)", torch.swapaxes(t, 0, 2))
info("swapdims", t.swapdims(1, 3))
info("transpose(-1, -2)", t.transpose(-1, -2))
info("permute", t.permute(3, 1, 0, 2))
info("mT", t.mT)
print("movedim equals permute:", torch.equal(t.movedim(1, -1), t.permute(0, 2, 3, 1)))
print("view shares:", t.movedim(0, 1).data_ptr() == t.data_ptr(), t.movedim(0, 1)._base is t)
try:
    torch.movedim(t, (0, 0), (1, 2))
except RuntimeError as err:
    print("movedim repeated:", err)
try:
    torch.movedim(t, (0, 1), (1,))
except RuntimeError as err:
    print("movedim lengths:", err)
try:
    t.swapaxes(0, 4)
except IndexError as err:
    print("swapaxes:", err)
nc = t.transpose(0, 1)
try:
    nc.view(-1)
except RuntimeError as err:
    print("view after transpose:", str(err)[:60])
info("reshape after transpose", nc.reshape(6, 20))
info("flatten(1)", nc.flatten(1))
