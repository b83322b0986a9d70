"""The mistakes neural-field code makes and PyTorch's words for them: meshgrid's indexing argument, searchsorted
on mismatched or unsorted inputs, gather indices from float tensors, grid_sample shapes and modes, autograd.grad on
non-scalars, without create_graph, or on unused inputs, in-place writes into leaves and saved tensors (cumprod's
result), int overflow in hashing, and linalg on singular camera matrices."""

import torch
F = torch.nn.functional

torch.manual_seed(0)


def attempt(name, fn):
    try:
        out = fn()
        if isinstance(out, torch.Tensor):
            out = (tuple(out.shape), out.dtype, out.detach().double().flatten()[:4].round(decimals=4).tolist())
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


attempt("meshgrid_bad_indexing", lambda: torch.meshgrid(torch.arange(2), torch.arange(3), indexing="yx"))
attempt("meshgrid_2d_input", lambda: torch.meshgrid(torch.ones(2, 2), torch.arange(3), indexing="ij"))
attempt("meshgrid_mixed_dtype", lambda: torch.meshgrid(torch.arange(2.0), torch.arange(3), indexing="xy"))
attempt("meshgrid_empty", lambda: torch.meshgrid([], indexing="ij"))
attempt("searchsorted_batch", lambda: torch.searchsorted(torch.rand(4, 8), torch.rand(3, 2)))
attempt("searchsorted_dtype", lambda: torch.searchsorted(torch.tensor([1, 2, 3]), torch.tensor([1.5])))
attempt("searchsorted_int32_out", lambda: torch.searchsorted(torch.tensor([1.0, 2.0]), torch.tensor([1.5]),
                                                               out_int32=True, right=True))
attempt("searchsorted_scalar_boundary", lambda: torch.searchsorted(torch.tensor(1.0), torch.tensor([1.5])))
attempt("searchsorted_sorter_dtype", lambda: torch.searchsorted(torch.tensor([2.0, 1.0]), torch.tensor([1.5]),
                                                                  sorter=torch.tensor([1.0, 0.0])))
attempt("searchsorted_sorter_range", lambda: torch.searchsorted(torch.tensor([2.0, 1.0]), torch.tensor([1.5]),
                                                                  sorter=torch.tensor([1, 2])))
attempt("gather_float_index", lambda: torch.gather(torch.rand(2, 4), 1, torch.tensor([[0.0, 1.0]])))
attempt("gather_rank", lambda: torch.gather(torch.rand(2, 4), 1, torch.tensor([0, 1])))
attempt("gather_oob", lambda: torch.gather(torch.rand(2, 4), 1, torch.tensor([[4], [0]])))
vol = torch.rand(1, 2, 4, 4, 4)
attempt("grid_sample_2d_grid_on_volume", lambda: F.grid_sample(vol, torch.zeros(1, 5, 1, 2), align_corners=True))
attempt("grid_sample_mode", lambda: F.grid_sample(vol, torch.zeros(1, 5, 1, 1, 3), mode="trilinear",
                                                  align_corners=True))
attempt("grid_sample_batch", lambda: F.grid_sample(vol, torch.zeros(2, 5, 1, 1, 3), align_corners=True))
attempt("grid_sample_dtype", lambda: F.grid_sample(vol.double(), torch.zeros(1, 5, 1, 1, 3), align_corners=True))
attempt("grid_sample_int", lambda: F.grid_sample(vol.long(), torch.zeros(1, 5, 1, 1, 3).long(), align_corners=True))
attempt("grid_sample_empty_spatial", lambda: F.grid_sample(torch.rand(1, 1, 0, 4), torch.zeros(1, 2, 2, 2),
                                                           align_corners=True))
attempt("interp_trilinear_4d", lambda: F.interpolate(torch.rand(1, 1, 4, 4), scale_factor=2, mode="trilinear"))
attempt("interp_align_nearest", lambda: F.interpolate(vol, scale_factor=2, mode="nearest", align_corners=True))

x = torch.rand(5, 3, requires_grad=True)
sdf = x.norm(dim=-1) - 0.5
attempt("grad_non_scalar", lambda: torch.autograd.grad(sdf, x))
attempt("grad_unused", lambda: torch.autograd.grad(sdf.sum(), [x, torch.rand(2, requires_grad=True)]))
attempt("grad_allow_unused", lambda: torch.autograd.grad(sdf.sum(), [x, torch.rand(2, requires_grad=True)],
                                                         allow_unused=True, retain_graph=True)[1])
attempt("grad_materialize", lambda: torch.autograd.grad(sdf.sum(), [x, torch.rand(2, requires_grad=True)],
                                                        allow_unused=True, materialize_grads=True)[1])
g = torch.autograd.grad((x.norm(dim=-1) - 0.5).sum(), x)[0]
attempt("eikonal_without_create_graph", lambda: ((g.norm(dim=-1) - 1) ** 2).mean().backward())
y = (x * 2).sum()
y.backward()
attempt("backward_twice", lambda: y.backward())
attempt("grad_outputs_shape", lambda: torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(3)))
attempt("grad_no_requires", lambda: torch.autograd.grad(torch.ones(2).sum(), torch.ones(2)))

alpha = torch.rand(4, 6, requires_grad=True)
T = torch.cumprod(1 - alpha, -1)


def modify_saved():
    T.mul_(2)
    T.sum().backward()


attempt("cumprod_result_modified", modify_saved)
attempt("leaf_inplace", lambda: alpha.clamp_(0, 1))
with torch.no_grad():
    alpha.clamp_(0.1, 0.9)
print("no_grad_inplace", alpha.requires_grad, alpha.is_leaf, round(alpha.min().item(), 4) >= 0.1)
attempt("cumprod_int_overflow", lambda: torch.cumprod(torch.full((40,), 3, dtype=torch.int64), 0)[-1].item())
attempt("int32_prime", lambda: torch.tensor([1, 2]) * torch.tensor(2654435761, dtype=torch.int32))
attempt("float_xor", lambda: torch.tensor([1.0]) ^ torch.tensor([1.0]))
attempt("inv_singular", lambda: torch.linalg.inv(torch.zeros(3, 3)))
attempt("inv_batch_singular", lambda: torch.linalg.inv(torch.stack([torch.eye(3), torch.zeros(3, 3)])))
attempt("solve_shape", lambda: torch.linalg.solve(torch.eye(3), torch.ones(4)))
attempt("cross_shape", lambda: torch.cross(torch.ones(4, 2), torch.ones(4, 2), dim=1))
attempt("cross_bcast_mismatch", lambda: torch.linalg.cross(torch.ones(4, 3), torch.ones(5, 3)))
attempt("normalize_int", lambda: F.normalize(torch.tensor([[3, 4]]), dim=-1))
attempt("quat_unbind", lambda: torch.tensor([1.0, 0.0, 0.0]).unbind(-1)[3])
attempt("rand_int", lambda: torch.rand(2, dtype=torch.int64))
attempt("rand_generator_type", lambda: torch.rand(2, generator=0))
attempt("randperm_generator_type", lambda: torch.randperm(4, generator=torch.manual_seed))
attempt("uniform_from_gt_to", lambda: torch.empty(3).uniform_(1.0, 0.0))
attempt("linspace_steps", lambda: torch.linspace(0, 1, steps=-1))
attempt("arange_bad_step", lambda: torch.arange(0, 1, -0.1))
