"""storage and view semantics: shared storage, strides, contiguity, as_strided/unfold, view vs reshape errors."""

import torch

x = torch.arange(12, dtype=torch.float32)
print("nbytes", x.untyped_storage().nbytes(), x.element_size(), x.nelement(), x.numel())
m = x.view(3, 4)
print("shape stride", m.shape, m.stride(), m.is_contiguous(), m.storage_offset())
print("same storage", m.data_ptr() == x.data_ptr(), m.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
row = m[1]
print("row offset", row.storage_offset(), row.data_ptr() - x.data_ptr(), row.stride())
col = m[:, 2]
print("col", col, col.stride(), col.is_contiguous(), col.storage_offset())
t = m.t()
print("transpose", t.shape, t.stride(), t.is_contiguous(), t.contiguous().stride())
print("contiguous copies", t.contiguous().data_ptr() == t.data_ptr(), m.contiguous().data_ptr() == m.data_ptr())
try:
    t.view(12)
except RuntimeError as e:
    print("view error:", e)
print("reshape ok", t.reshape(12))
print("reshape shares", m.reshape(2, 6).data_ptr() == x.data_ptr(), t.reshape(12).data_ptr() == x.data_ptr())
try:
    x.view(5, 3)
except RuntimeError as e:
    print("view size error:", e)
try:
    x.reshape(-1, -1)
except RuntimeError as e:
    print("two -1:", e)
print("view -1", x.view(-1, 6).shape, x.view(2, -1, 3).shape)
m[0, 0] = 100.0
print("write through view", x[:4])
x[0] = 0.0
s = x[::3]
print("step slice", s, s.stride(), s.is_contiguous())
a = torch.arange(10.0)
win = a.unfold(0, 4, 2)
print("unfold", win, win.shape, win.stride())
ast = torch.as_strided(a, (3, 3), (2, 1), 1)
print("as_strided", ast, ast.storage_offset())
ast2 = a.as_strided((4, 2), (1, 0))
print("as_strided zero stride", ast2)
e = torch.tensor([1.0, 2.0, 3.0]).expand(2, 3)
print("expand", e, e.stride(), e.is_contiguous())
try:
    e.add_(1)
except RuntimeError as err:
    print("expand inplace:", err)
e2 = e.clone()
e2.add_(1)
print("clone then add", e2, e2.stride())
u = torch.zeros(2, 1, 3)
print("squeeze/unsqueeze strides", u.squeeze(1).stride(), u.unsqueeze(0).stride(), u.expand(2, 4, 3).stride())
p = torch.arange(24).view(2, 3, 4)
q = p.permute(2, 0, 1)
print("permute", q.shape, q.stride(), q.is_contiguous())
print("channels_last", p.view(1, 2, 3, 4).contiguous(memory_format=torch.channels_last).stride())
cl = torch.empty(2, 3, 4, 5).to(memory_format=torch.channels_last)
print("is_contig cl", cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last))
n = p.narrow(2, 1, 2)
print("narrow", n.shape, n.stride(), n.storage_offset())
d = torch.arange(9).view(3, 3).diagonal()
print("diagonal", d, d.stride(), d.storage_offset())
f = p.flatten()
print("flatten shares", f.data_ptr() == p.data_ptr(), q.flatten().data_ptr() == p.data_ptr())
ch = torch.arange(10).chunk(3)
print("chunk offsets", [c.storage_offset() for c in ch], [c.shape[0] for c in ch])
sp = torch.arange(10).split([2, 3, 5])
print("split", [tuple(c.tolist()) for c in sp])
z = torch.zeros(3)
zv = z[1:]
zv.fill_(7)
print("fill view", z)
w = torch.arange(6.0)
wv = w.view(2, 3)
wv.mul_(2)
print("mul_ view", w, w._version == wv._version)
print("is_set_to", w.is_set_to(w), w.is_set_to(wv))
print("detach shares", w.detach().data_ptr() == w.data_ptr())
r = torch.arange(4.0).repeat(2)
print("repeat copies", r, r.data_ptr() == torch.arange(4.0).data_ptr())
g = torch.arange(6).view(2, 3)
print("T shape", g.T.shape, g.mT.stride(), g.t().t().stride())
print("movedim", torch.zeros(2, 3, 4).movedim(0, -1).stride())
print("unflatten", torch.arange(12).unflatten(0, (3, 4)).stride())
k = torch.arange(8.0)
print("view dtype", k[:2].view(torch.int32), k.view(torch.int64).shape)
print(
    "storage size",
    torch.zeros(4, dtype=torch.float64).untyped_storage().size(),
    torch.zeros(2, dtype=torch.int16).untyped_storage().nbytes(),
)
sl = torch.arange(20)[5:15]
print("slice storage", sl.untyped_storage().nbytes(), sl.storage_offset(), sl.clone().untyped_storage().nbytes())
print("view int8", torch.arange(6).view(2, 3).view(torch.int8).shape)
try:
    torch.arange(6).view(2, 3).t().view(torch.int8)
except RuntimeError as err:
    print("view dtype err:", err)
try:
    torch.arange(5.0).unfold(0, 6, 1)
except RuntimeError as err:
    print("unfold err:", err)
bc = torch.broadcast_to(torch.arange(3), (2, 3))
print("broadcast_to", bc.stride(), torch.broadcast_shapes((3, 1), (1, 4), (4,)))
g = torch.arange(12.0).view(3, 4)
for label, fn in [
    ("as_strided out of bounds", lambda: g.as_strided((2, 2), (1, 2), 20)),
    ("expand mismatch", lambda: torch.ones(2, 3).expand(3, 3)),
    ("expand mul_", lambda: torch.ones(3, 1).expand(3, 4).mul_(2)),
    ("expand copy_", lambda: torch.ones(3, 1).expand(3, 4).copy_(torch.zeros(3, 4))),
    ("unfold dim", lambda: g.unfold(2, 1, 1)),
    ("negative offset", lambda: torch.as_strided(g, (2,), (1,), -1)),
    ("channels_last view", lambda: torch.ones(2, 3, 4, 5).contiguous(memory_format=torch.channels_last).view(2, -1)),
    ("view as double", lambda: torch.ones(3, 3).view(torch.float64)),
]:
    try:
        fn()
        print(label, "ok")
    except (RuntimeError, IndexError) as err:
        print(label, type(err).__name__, err)
print("unfold 2d", g.unfold(1, 2, 2).stride(), g.unfold(0, 2, 1).shape)
print("slice reshape copies", g[:, :2].reshape(6).data_ptr() == g.data_ptr(), g[:, :1].is_contiguous())
print("resize_", torch.arange(6.0).resize_(2, 2), torch.arange(6.0).resize_(8).shape)
print("set_", torch.tensor([1.0, 2.0]).set_(torch.tensor([5.0, 6.0, 7.0]).untyped_storage()).tolist())
print("view float16", torch.ones(3, 4).view(torch.float16).shape, torch.ones(4, 1).t().is_contiguous())
