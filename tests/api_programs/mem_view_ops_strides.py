"""Stride arithmetic of the view and in-place metadata ops as library authors check it: narrow_copy, unfold with
step past size and its errors, split/chunk/tensor_split/unbind strides, movedim/swapdims, diagonal offsets over
dims, squeeze/unsqueeze of strided tensors, complex real/imag/view_as_real strides, reshape and view of expanded
tensors, the in-place t_/transpose_/squeeze_/unsqueeze_/as_strided_ and their versions, zero-size views,
stride()/size() with negative and bad dims, and null data_ptr of tensors without elements."""

import torch


def tr(name, f):
    """Print what `f` returns, or the exception PyTorch raises."""
    try:
        print(name, "->", f())
    except Exception as e:
        print(name, "!!", type(e).__name__, e)


x = torch.arange(24.).view(4, 6)
tr("narrow_copy", lambda: (x.narrow_copy(1, 1, 2).data_ptr() != x.data_ptr(), x.narrow_copy(1,1,2).stride()))
tr("unfold step>size", lambda: x.unfold(1, 2, 3).stride())
tr("unfold size 0", lambda: x.unfold(1, 0, 1).shape)
tr("unfold too big", lambda: x.unfold(1, 7, 1))
tr("unfold dim scalar", lambda: torch.tensor(3.).unfold(0, 1, 1))
tr("split 0 size", lambda: [t.shape for t in x.split(0, 1)] )
tr("split sizes wrong", lambda: x.split([2, 2], 1))
tr("chunk uneven", lambda: [t.shape for t in x.chunk(4, 1)])
tr("tensor_split idx", lambda: [t.stride() for t in x.tensor_split([1, 4], 1)])
tr("unbind strides", lambda: [t.stride() for t in x.t().unbind(1)][:2])
tr("movedim strides", lambda: torch.zeros(2,3,4).movedim((0,1),(2,0)).stride())
tr("swapdims", lambda: torch.zeros(2,3,4).swapdims(0,2).stride())
tr("diag_embed", lambda: torch.diag_embed(torch.ones(2,3)).stride())
tr("diagonal offsets", lambda: (x.diagonal(1).stride(), x.diagonal(1).storage_offset(),
                                x.diagonal(-2).storage_offset()))
tr("diagonal dims", lambda: torch.zeros(2,3,4).diagonal(0, 0, 2).stride())
tr("select neg", lambda: x.select(1, -1).storage_offset())
tr("squeeze strides", lambda: torch.zeros(3,1,4)[:, :, ::2].squeeze(1).stride())
tr("unsqueeze stride", lambda: torch.zeros(3,4).t().unsqueeze(1).stride())
tr("unsqueeze end", lambda: torch.zeros(3,4)[:, ::2].unsqueeze(-1).stride())
tr("expand strides", lambda: torch.zeros(3,1).expand(2,3,5).stride())
tr("view complex", lambda: torch.zeros(4).view(torch.complex64).stride())
tr("view_as_real strides", lambda: torch.view_as_real(torch.zeros(3, 2, dtype=torch.complex64).t()).stride())
tr("real of t", lambda: torch.zeros(3,2,dtype=torch.complex64).t().real.stride())
tr("imag offset", lambda: torch.zeros(3,dtype=torch.complex64)[1:].imag.storage_offset())
tr("flatten 0d", lambda: torch.tensor(1.).flatten().shape)
tr("ravel t", lambda: x.t().ravel().is_contiguous())
tr("reshape -1 of expand", lambda: torch.zeros(1,3).expand(2,3).reshape(-1).stride())
tr("reshape view expand", lambda: torch.zeros(3,1).expand(3,4).reshape(3,2,2).stride())
tr("view expand split", lambda: torch.zeros(3,1).expand(3,4).view(3,2,2).stride())
tr("as_strided_ return", lambda: (lambda y: y.as_strided_((2,),(2,)) is y)(torch.zeros(4)))
tr("t_", lambda: (lambda y: (y.t_(), y.stride())[1])(torch.zeros(2,3)))
tr("transpose_", lambda: (lambda y: (y.transpose_(0,2), y.stride())[1])(torch.zeros(2,3,4)))
tr("squeeze_", lambda: (lambda y: (y.squeeze_(), y.stride())[1])(torch.zeros(2,1,3)))
tr("unsqueeze_", lambda: (lambda y: (y.unsqueeze_(0), y.stride())[1])(torch.zeros(2,3).t()))
tr("swapaxes_", lambda: (lambda y: (y.swapaxes_(0,1), y.stride())[1])(torch.zeros(2,3)))
tr("t_ version", lambda: (lambda y: (y.t_(), y._version)[1])(torch.zeros(2,3)))
tr("t_ on view", lambda: (lambda b: (b[0:1].t_(), b.shape)[1])(torch.zeros(2,3)))
tr("t_ leaf grad", lambda: torch.zeros(2,3,requires_grad=True).t_())
tr("t_ view of leaf", lambda: torch.zeros(2,3,requires_grad=True)[0:1].t_().shape)
tr("squeeze_ version", lambda: (lambda y: (y.squeeze_(), y._version)[1])(torch.zeros(2,1)))
tr("contiguous of t_", lambda: (lambda y: (y.t_(), y.is_contiguous())[1])(torch.zeros(2,3)))
tr("unflatten neg", lambda: x.unflatten(-1, (3, 2)).stride())
tr("view 0 numel", lambda: torch.zeros(0, 3).view(-1, 0).shape)
tr("view -1 zero", lambda: torch.zeros(0, 3).view(-1))
tr("view -1 ambiguous zero", lambda: torch.zeros(0, 3).view(0, -1))
tr("reshape 0 -1", lambda: torch.zeros(0, 3).reshape(0, -1))
tr("stride of 0-size", lambda: torch.zeros(0, 3, 2).stride())
tr("stride dim", lambda: x.stride(-1))
tr("stride bad dim", lambda: x.stride(2))
tr("size neg dim", lambda: x.size(-3))
tr("storage_offset of 0d", lambda: x[1, 2].storage_offset())
tr("is_contiguous 0d", lambda: x[1,2].is_contiguous())
tr("is_non_overlapping", lambda: torch.zeros(3,1).expand(3,4).is_contiguous())
tr("numel expand", lambda: torch.zeros(3,1).expand(3,4).numel())
tr("item on view", lambda: x[2:3, 4:5].item())
tr("data_ptr 0size", lambda: torch.zeros(0).data_ptr())
tr("element_size bool", lambda: torch.zeros(1, dtype=torch.bool).element_size())
tr("nbytes view", lambda: x[:, :2].nbytes)
tr("itemsize complex", lambda: torch.zeros(1, dtype=torch.complex128).itemsize)
