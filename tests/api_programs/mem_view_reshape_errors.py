"""view against reshape as library authors reason about it: when view works on a non-contiguous tensor (splitting
or merging dims that stay compatible) and when it raises 'view size is not compatible with input tensor's size and
stride', reshape's copy in those cases (storage shared or not), flatten/unflatten/view(-1) corners, view(dtype)
with its size rules, and the in-place errors on expanded tensors (more than one element of the written-to tensor
refers to a single memory location) with their workarounds (clone, contiguous, out=)."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def attempt(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: shape={tuple(out.shape)} stride={out.stride()} off={out.storage_offset()}")
    else:
        print(f"{name}: {out}")
    return out


x = torch.arange(24.0).view(2, 3, 4)
xt = x.transpose(1, 2)  # (2, 4, 3) strides (12, 1, 4)
attempt("x.view(6, 4)", lambda: x.view(6, 4))
attempt("xt.view(8, 3)", lambda: xt.view(8, 3))
attempt("xt.view(2, 12)", lambda: xt.view(2, 12))
attempt("xt.view(2, 2, 2, 3)", lambda: xt.view(2, 2, 2, 3))
attempt("xt.view(-1)", lambda: xt.view(-1))
attempt("xt.reshape(-1)", lambda: xt.reshape(-1))
print("reshape copied:", xt.reshape(-1).data_ptr() != x.data_ptr())
attempt("xt.reshape(2, 2, 2, 3)", lambda: xt.reshape(2, 2, 2, 3))
print("reshape viewed:", xt.reshape(2, 2, 2, 3).data_ptr() == x.data_ptr())
s = x[:, :, ::2]  # (2, 3, 2) strides (12, 4, 2)
attempt("s.view(6, 2)", lambda: s.view(6, 2))
attempt("s.view(2, 6)", lambda: s.view(2, 6))
attempt("s.view(12)", lambda: s.view(12))
attempt("s.flatten()", lambda: s.flatten())
attempt("s.flatten(0, 1)", lambda: s.flatten(0, 1))
print("flatten(0, 1) shares:", s.flatten(0, 1).data_ptr() == x.data_ptr())
attempt("x[:, 1:].view(-1, 4)", lambda: x[:, 1:].view(-1, 4))
attempt("x[:, :, 1:].view(-1, 3)", lambda: x[:, :, 1:].view(-1, 3))
attempt("x.view(5, -1)", lambda: x.view(5, -1))
attempt("x.view(-1, -1)", lambda: x.view(-1, -1))
attempt("x.view(2, 0, -1)", lambda: x.view(2, 0, -1))
attempt("x.reshape(7, 3)", lambda: x.reshape(7, 3))
attempt("x.view(4, 3, 2) ok", lambda: x.view(4, 3, 2))
attempt("x.unflatten(2, (2, -1))", lambda: x.unflatten(2, (2, -1)))
attempt("x.unflatten(2, (3, -1))", lambda: x.unflatten(2, (3, -1)))
attempt("xt.unflatten(1, (2, 2))", lambda: xt.unflatten(1, (2, 2)))
e = torch.zeros(3, 1).expand(3, 4)
attempt("expanded.view(12)", lambda: e.view(12))
attempt("expanded.view(3, 2, 2)", lambda: e.view(3, 2, 2))
attempt("expanded.reshape(12)", lambda: e.reshape(12))
attempt("scalar.view(1, 1)", lambda: torch.tensor(5.0).view(1, 1))
attempt("scalar.view(())", lambda: torch.tensor([5.0]).view(()))

# view(dtype)
f = torch.arange(6.0).view(2, 3)
attempt("view(torch.int32)", lambda: f.view(torch.int32))
attempt("view(torch.float64)", lambda: f.view(torch.float64))
attempt("view(torch.float64) of (2, 4)", lambda: torch.zeros(2, 4).view(torch.float64))
attempt("view(torch.uint8)", lambda: f.view(torch.uint8))
attempt("t().view(torch.int16)", lambda: f.t().view(torch.int16))
attempt("t().view(torch.int32)", lambda: f.t().view(torch.int32))
attempt("view(torch.float16)", lambda: f.view(torch.float16))
print("bits of 1.0:", hex(torch.tensor(1.0).view(torch.int32).item()))
print("bits of -0.5 (float64):", hex(torch.tensor(-0.5, dtype=torch.float64).view(torch.int64).item()))

# expand and in-place
b = torch.ones(3, 1).expand(3, 4)
attempt("expanded.add_(1)", lambda: b.add_(1))
attempt("expanded.fill_(2)", lambda: b.fill_(2))
attempt("expanded.copy_(rand)", lambda: b.copy_(torch.rand(3, 4)))
attempt("expanded[0] = 5", lambda: b.__setitem__(0, 5.0))
attempt("expanded.zero_()", lambda: b.zero_())
attempt("torch.add(out=expanded)", lambda: torch.add(torch.ones(3, 4), 1, out=b))
attempt("expanded.mul_(scalar)", lambda: b.mul_(2.0))
print("expanded still ones:", b.tolist())
w = b.clone()
w.add_(torch.arange(4.0))
print("clone then add_:", w)
print("contiguous then add_:", b.contiguous().add_(1).sum().item())
y = torch.zeros(4)
yy = y.as_strided((2, 3), (1, 1))
attempt("overlapping as_strided add_", lambda: yy.add_(1))
attempt("overlapping as_strided read", lambda: yy.sum())
z = torch.arange(5.0)
attempt("in-place partial overlap (z[1:].copy_(z[:-1]))", lambda: z[1:].copy_(z[:-1]))
print("z:", z.tolist())
attempt("add_ with overlapping input", lambda: z[1:].add_(z[:-1]))
attempt("exp with out overlapping input", lambda: torch.exp(z[:3], out=z[1:4]))
q = torch.arange(4.0)
attempt("add out=self alias", lambda: torch.add(q, 1, out=q))
print("q:", q.tolist())

# stride-0 expand shares memory and cheap broadcast
row = torch.arange(3.0)
big = row.expand(1000, 3)
print("expand stride:", big.stride(), "storage bytes:", big.untyped_storage().nbytes(),
      "is_contiguous:", big.is_contiguous())
row[0] = 9.0
print("expanded sees the write:", big[999].tolist())
print("expand_as:", torch.zeros(2, 3).expand_as(torch.zeros(4, 2, 3)).stride())
attempt("expand non-singleton", lambda: torch.zeros(2, 3).expand(4, 3))
attempt("expand fewer dims", lambda: torch.zeros(2, 3).expand(3))
attempt("expand -1", lambda: torch.zeros(1, 3).expand(5, -1))
attempt("broadcast_to", lambda: torch.broadcast_to(torch.zeros(3), (2, 3)))
