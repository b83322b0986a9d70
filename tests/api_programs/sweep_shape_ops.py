"""OpInfo-style sweep: view and shape ops on contiguous, transposed, expanded, sliced and zero-size inputs,
printing shapes, strides, contiguity, whether the result is a view, and values or the error."""

import torch


def base():
    return torch.arange(24).reshape(2, 3, 4)


INPUTS = {
    "contig": lambda: base(),
    "transposed": lambda: base().transpose(0, 2),
    "permuted": lambda: base().permute(1, 2, 0),
    "sliced": lambda: base()[:, ::2, 1:],
    "expanded": lambda: torch.arange(4).reshape(1, 1, 4).expand(2, 3, 4),
    "zero": lambda: torch.zeros(2, 0, 4, dtype=torch.int64),
}


def desc(x, src):
    if isinstance(x, torch.Tensor):
        root = src if src._base is None else src._base
        view = x._base is root
        vals = x.flatten().tolist()[:8]
        return f"{tuple(x.shape)} {x.stride()} c={x.is_contiguous()} view={view} {vals}"
    return "[" + " | ".join(desc(t, src) for t in x) + "]"


def show(label, fn, src):
    try:
        print(label, "->", desc(fn(src), src))
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


OPS = {
    "reshape(-1)": lambda x: x.reshape(-1),
    "reshape(4,-1)": lambda x: x.reshape(4, -1),
    "view(-1)": lambda x: x.view(-1),
    "view(6,4)": lambda x: x.view(6, 4),
    "view(2,-1)": lambda x: x.view(2, -1),
    "expand(2,2,3,4)": lambda x: x.expand(2, *x.shape),
    "expand(-1,1,-1)": lambda x: x.expand(-1, 1, -1),
    "permute(2,0,1)": lambda x: x.permute(2, 0, 1),
    "permute(0,0,1)": lambda x: x.permute(0, 0, 1),
    "transpose(-1,0)": lambda x: x.transpose(-1, 0),
    "mT": lambda x: x.mT,
    "squeeze()": lambda x: x[:1].squeeze(),
    "squeeze(0)": lambda x: x.squeeze(0),
    "squeeze((0,1))": lambda x: x[:1, :1].squeeze((0, 1)),
    "unsqueeze(-1)": lambda x: x.unsqueeze(-1),
    "unsqueeze(4)": lambda x: x.unsqueeze(4),
    "flatten()": lambda x: x.flatten(),
    "flatten(1)": lambda x: x.flatten(1),
    "flatten(0,1)": lambda x: x.flatten(0, 1),
    "unflatten(-1,(2,2))": lambda x: x.unflatten(-1, (2, -1)),
    "movedim(0,-1)": lambda x: x.movedim(0, -1),
    "movedim((0,1),(2,0))": lambda x: torch.movedim(x, (0, 1), (2, 0)),
    "narrow(-1,1,2)": lambda x: x.narrow(-1, 1, 2),
    "narrow(0,1,5)": lambda x: x.narrow(0, 1, 5),
    "split(2,-1)": lambda x: x.split(2, -1),
    "split([1,3],-1)": lambda x: x.split([1, 3], -1),
    "chunk(3,-1)": lambda x: x.chunk(3, -1),
    "tensor_split(3,-1)": lambda x: x.tensor_split(3, -1),
    "tensor_split([1,2],0)": lambda x: torch.tensor_split(x, [1, 2], 0),
    "unbind(0)": lambda x: x.unbind(0),
    "stack": lambda x: torch.stack([x, x], 1),
    "cat(-1)": lambda x: torch.cat([x, x], -1),
    "cat(bad)": lambda x: torch.cat([x, x[:, :, :1].squeeze(-1)], 0),
    "flip(0,-1)": lambda x: x.flip(0, -1),
    "roll(1)": lambda x: x.roll(1),
    "roll((1,-1),(0,2))": lambda x: x.roll((1, -1), (0, 2)),
    "repeat(1,2,1)": lambda x: x.repeat(1, 2, 1),
    "repeat(2)": lambda x: x.repeat(2),
    "tile((2,))": lambda x: x.tile((2,)),
    "repeat_interleave(2)": lambda x: x.repeat_interleave(2),
    "repeat_interleave(2,dim=0)": lambda x: x.repeat_interleave(2, dim=0),
    "contiguous": lambda x: x.contiguous(),
    "clone": lambda x: x.clone(),
    "T": lambda x: x[0].T,
    "diagonal(0,1,2)": lambda x: x.diagonal(0, 1, 2),
    "select(1,-1)": lambda x: x.select(1, -1),
    "unfold(2,2,1)": lambda x: x.unfold(2, 2, 1),
    "as_strided": lambda x: x.as_strided((2, 2), (1, 2)),
    "swapaxes(0,1)": lambda x: x.swapaxes(0, 1),
    "atleast_3d": lambda x: torch.atleast_3d(x[0, 0]),
    "hstack": lambda x: torch.hstack([x, x]),
    "vstack": lambda x: torch.vstack([x, x]),
    "broadcast_to": lambda x: torch.broadcast_to(x[:, :1], (2, 3, 3, 4)),
}

for oname, op in OPS.items():
    print("==", oname)
    for iname, make in INPUTS.items():
        show(f"{oname} {iname}", op, make())

print("== broadcast_shapes")
for shapes in [((2, 1), (1, 3)), ((0,), (1,)), ((3,), (2, 1)), ((2,), (3,)), ((), (4, 1))]:
    try:
        print(shapes, torch.broadcast_shapes(*shapes))
    except Exception as e:
        print(shapes, type(e).__name__ + ":", str(e).splitlines()[0])
print("== contiguity of formats")
x = torch.zeros(2, 3, 4, 5)
cl = x.to(memory_format=torch.channels_last)
print(cl.stride(), cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last))
print(cl.permute(0, 2, 3, 1).is_contiguous(), cl.reshape(2, -1).stride(), cl.flatten(2).stride())
print(torch.empty_like(cl).stride(), torch.zeros_like(x.transpose(1, 2)).stride(), (cl + 1).stride())
print(x.transpose(1, 2).clone().stride(), x.transpose(1, 2).contiguous().stride())
