"""The *_like factories and clone with memory_format as library code allocates outputs and buffers: preserve_format
over dense permutations, slices with steps, expanded, overlapping and size-1-dim inputs, channels_last corner
shapes (C=1, H=W=1, N=1) and their ambiguous flags, contiguous(memory_format) no-op rules, new_empty/new_zeros/
empty_strided, to(memory_format=) and type conversions keeping layouts, and suggest-format style checks."""

import torch

torch.manual_seed(0)
CL, CL3 = torch.channels_last, torch.channels_last_3d


def lay(t):
    s = f"{tuple(t.shape)} {t.stride()} c={t.is_contiguous()}"
    if t.dim() == 4:
        s += f" cl={t.is_contiguous(memory_format=CL)}"
    if t.dim() == 5:
        s += f" cl3d={t.is_contiguous(memory_format=CL3)}"
    return s


def show(name, fn):
    try:
        print(f"{name:34s} {lay(fn())}")
    except Exception as e:
        print(f"{name:34s} {type(e).__name__}: {e}")


inputs = {
    "nchw": torch.randn(2, 3, 4, 5),
    "nhwc": torch.randn(2, 3, 4, 5).contiguous(memory_format=CL),
    "permuted 3d": torch.randn(2, 3, 4).permute(2, 0, 1),
    "transposed": torch.randn(4, 6).t(),
    "step slice": torch.randn(4, 6)[:, ::2],
    "narrow": torch.randn(4, 6).narrow(1, 1, 3),
    "expanded": torch.randn(3, 1).expand(3, 4),
    "overlap": torch.randn(10).as_strided((3, 4), (1, 1)),
    "size-1 dims": torch.randn(1, 3, 1, 4),
    "nhwc C=1": torch.randn(2, 1, 4, 5).contiguous(memory_format=CL),
    "nhwc H=W=1": torch.randn(2, 3, 1, 1).contiguous(memory_format=CL),
    "nhwc N=1": torch.randn(1, 3, 4, 5).contiguous(memory_format=CL),
    "ndhwc": torch.randn(1, 2, 3, 4, 5).contiguous(memory_format=CL3),
    "empty nhwc": torch.randn(0, 3, 4, 5).contiguous(memory_format=CL),
}
for name, x in inputs.items():
    print(f"== {name}: {lay(x)}")
    show("  empty_like", lambda: torch.empty_like(x))
    show("  zeros_like contiguous", lambda: torch.zeros_like(x, memory_format=torch.contiguous_format))
    show("  ones_like preserve", lambda: torch.ones_like(x, memory_format=torch.preserve_format))
    show("  randn_like", lambda: torch.randn_like(x))
    show("  full_like", lambda: torch.full_like(x, 3.0))
    show("  clone", lambda: x.clone())
    show("  clone contiguous", lambda: x.clone(memory_format=torch.contiguous_format))
    show("  contiguous", lambda: x.contiguous())
    show("  mul 2", lambda: x * 2)
    show("  exp", lambda: x.exp())
    show("  to(float64)", lambda: x.to(torch.float64))
    show("  half()", lambda: x.half())
    if x.dim() == 4:
        show("  contiguous cl", lambda: x.contiguous(memory_format=CL))
        show("  empty_like cl", lambda: torch.empty_like(x, memory_format=CL))
        show("  to cl", lambda: x.to(memory_format=CL))
        print("  contiguous(cl) is self:", x.contiguous(memory_format=CL) is x,
              "to(cl) is self:", x.to(memory_format=CL) is x)

print("== errors and factories")
show("empty_like cl on 3-d", lambda: torch.empty_like(torch.randn(2, 3, 4), memory_format=CL))
show("contiguous cl3d on 4-d", lambda: torch.randn(2, 3, 4, 5).contiguous(memory_format=CL3))
show("contiguous preserve", lambda: torch.randn(2, 3).t().contiguous(memory_format=torch.preserve_format))
show("empty cl", lambda: torch.empty(2, 3, 4, 5, memory_format=CL))
show("zeros cl", lambda: torch.zeros(2, 3, 4, 5).to(memory_format=CL))
show("empty_strided", lambda: torch.empty_strided((2, 3), (1, 2)))
show("empty_strided overlap", lambda: torch.empty_strided((2, 3), (0, 1)))
show("new_empty", lambda: inputs["nhwc"].new_empty((2, 3)))
show("new_zeros of nhwc", lambda: inputs["nhwc"].new_zeros(inputs["nhwc"].shape))
show("new_empty_strided", lambda: inputs["nchw"].new_empty_strided((2, 2), (1, 2)))
show("empty_like of empty_strided", lambda: torch.empty_like(torch.empty_strided((2, 3), (1, 2))))
show("zeros_like requires_grad", lambda: torch.zeros_like(inputs["nhwc"], requires_grad=True))
print("zeros_like values:", torch.zeros_like(inputs["nhwc"]).sum().item(),
      "full_like values:", torch.full_like(inputs["transposed"], 2).sum().item())
print("clone shares nothing:", inputs["transposed"].clone().data_ptr() != inputs["transposed"].data_ptr())
print("values kept by clone cl:",
      torch.equal(inputs["nchw"].clone(memory_format=CL), inputs["nchw"]))
