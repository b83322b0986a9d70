"""torch.nn.functional and utility mistakes: F.pad with odd pad lists or modes, interpolate with both or neither
size and scale, softmax without dim (its warning caught), dropout probabilities out of range, normalize and
cosine_similarity on the wrong dims, unfold/fold sizes, grid_sample grids, pooling with indices, torch.save of a
lambda, no_grad used wrongly, and clip_grad_norm_ with no gradients."""

import io
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(8)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def oops(name, fn):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            out = fn()
        except Exception as e:
            print(f"{name}: {type(e).__name__}: {e}")
            out = None
        else:
            if isinstance(out, torch.Tensor):
                print(f"{name}: ok {tuple(out.shape)} {out.dtype}")
            else:
                print(f"{name}: ok {out}")
    for w in ws:
        print("  warns", w.category.__name__, str(w.message))


img = T(1, 2, 4, 4)
# padding
oops("pad_odd", lambda: F.pad(img, (1, 1, 1)))
oops("pad_too_long", lambda: F.pad(T(2, 3), (1, 1, 1, 1, 1, 1)))
oops("pad_reflect_big", lambda: F.pad(img, (4, 4), mode="reflect"))
oops("pad_reflect_rank", lambda: F.pad(T(4), (1, 1), mode="reflect"))
oops("pad_mode", lambda: F.pad(img, (1, 1), mode="mirror"))
oops("pad_value_mode", lambda: F.pad(img, (1, 1), mode="replicate", value=1.0))
oops("pad_negative_ok", lambda: F.pad(img, (-1, -1)))
oops("pad_circular_big", lambda: F.pad(img, (5, 5), mode="circular"))
oops("pad_float", lambda: F.pad(img, (1.5, 1)))
oops("pad_int", lambda: F.pad(img, 1))
oops("pad_float_second", lambda: F.pad(img, (1, 1.5)))

# resizing
oops("interp_both", lambda: F.interpolate(img, size=(8, 8), scale_factor=2))
oops("interp_neither", lambda: F.interpolate(img))
oops("interp_size_len", lambda: F.interpolate(img, size=(8, 8, 8)))
oops("interp_mode", lambda: F.interpolate(img, scale_factor=2, mode="cubic"))
oops("interp_bilinear_3d", lambda: F.interpolate(T(1, 2, 4), scale_factor=2, mode="bilinear"))
oops("interp_align_nearest", lambda: F.interpolate(img, scale_factor=2, mode="nearest", align_corners=True))
oops("interp_ok", lambda: F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=False))
oops("upsample_ok", lambda: nn.Upsample(size=3)(T(1, 1, 5)))
oops("pixel_shuffle", lambda: F.pixel_shuffle(T(1, 3, 2, 2), 2))
oops("adaptive_pool_len", lambda: F.adaptive_avg_pool2d(img, (1, 1, 1)))

# activations and normalization
caught = T(2, 3)
oops("softmax_no_dim", lambda: F.softmax(caught))
oops("log_softmax_no_dim", lambda: F.log_softmax(T(2, 3, 4)))
oops("softmax_dim_oob", lambda: F.softmax(caught, dim=2))
oops("softmax_module_ok", lambda: nn.Softmax(dim=-1)(caught))
oops("dropout_p", lambda: F.dropout(caught, p=1.5))
oops("dropout_module_p", lambda: nn.Dropout(p=-0.1))
oops("dropout_eval_ok", lambda: torch.equal(F.dropout(caught, p=0.5, training=False), caught))
oops("dropout2d_rank", lambda: nn.Dropout2d(0.5)(T(2, 3)))
oops("normalize_dim", lambda: F.normalize(caught, dim=2))
oops("cosine_dims", lambda: F.cosine_similarity(T(2, 3), T(2, 4)))
oops("cosine_ok", lambda: F.cosine_similarity(T(2, 3), T(1, 3)))
oops("pairwise_dims", lambda: F.pairwise_distance(T(2, 3), T(2, 4)))
oops("cdist_dims", lambda: torch.cdist(T(2, 3), T(4, 2)))
oops("glu_odd", lambda: F.glu(T(2, 3)))
oops("gelu_approx", lambda: F.gelu(caught, approximate="fast"))
oops("elu_inplace_leaf", lambda: F.elu(T(3).requires_grad_(), inplace=True))
oops("prelu_params", lambda: nn.PReLU(3)(T(2, 4)))
oops("layer_norm_fn", lambda: F.layer_norm(caught, (2, 3), weight=torch.ones(3)))
oops("batch_norm_fn_stats", lambda: F.batch_norm(caught, torch.zeros(2), torch.ones(2)))

# unfold, fold, grid_sample, pooling
oops("unfold_rank", lambda: F.unfold(T(2, 4, 4), 2))
oops("unfold_ok", lambda: F.unfold(img, 2, stride=2))
oops("fold_size", lambda: F.fold(T(1, 8, 3), output_size=(4, 4), kernel_size=2, stride=2))
oops("tensor_unfold_size", lambda: T(5).unfold(0, 6, 1))
oops("grid_rank", lambda: F.grid_sample(img, T(1, 3, 3), align_corners=False))
oops("grid_last_dim", lambda: F.grid_sample(img, T(1, 3, 3, 3), align_corners=False))
oops("grid_batch", lambda: F.grid_sample(img, T(2, 3, 3, 2), align_corners=False))
oops("grid_mode", lambda: F.grid_sample(img, T(1, 3, 3, 2), mode="cubic", align_corners=False))
oops("affine_grid_size", lambda: F.affine_grid(T(1, 2, 3), [1, 2, 4], align_corners=False))
oops("maxpool_indices_ok", lambda: F.max_pool2d(img, 2, return_indices=True)[1].dtype)
oops("unpool_size", lambda: F.max_unpool2d(*F.max_pool2d(img, 2, return_indices=True), 2, output_size=(9, 9)))
oops("embedding_fn_weight", lambda: F.embedding(torch.tensor([1]), T(4)))

# utilities
m = nn.Linear(2, 2)
oops("clip_no_grads", lambda: nn.utils.clip_grad_norm_(m.parameters(), 1.0))
oops("clip_norm_type", lambda: nn.utils.clip_grad_norm_([torch.ones(1, requires_grad=True)], 1.0, norm_type="l2"))
oops("params_to_vector", lambda: nn.utils.parameters_to_vector(m.parameters()))
oops("vector_to_params", lambda: nn.utils.vector_to_parameters(torch.ones(5), m.parameters()))
oops("vector_to_params_type", lambda: nn.utils.vector_to_parameters([1.0] * 6, m.parameters()))
oops("save_lambda", lambda: torch.save(lambda x: x, io.BytesIO()))
oops("save_local_class", lambda: torch.save(type("Local", (), {})(), io.BytesIO()))
oops("load_garbage", lambda: torch.load(io.BytesIO(b"not a checkpoint")))
oops("load_empty", lambda: torch.load(io.BytesIO(b"")))
oops("no_grad_call", lambda: torch.no_grad(lambda: 1)())
oops("set_grad_enabled_missing", lambda: torch.set_grad_enabled())
oops("manual_seed_str", lambda: torch.manual_seed("abc"))
oops("manual_seed_float_ok", lambda: type(torch.manual_seed(3)).__name__)
oops("numel_method", lambda: torch.ones(2, 3).numel == 6)
oops("size_index_oob", lambda: torch.ones(2, 3).size(2))
