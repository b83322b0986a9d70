"""torch.nn.utils as optimizers and sequence models lean on it: parameters_to_vector / vector_to_parameters
round trips (and their errors), clip_grad_norm_ with every norm_type, foreach on and off, error_if_nonfinite,
a generator of parameters, clip_grad_value_, get_total_norm and clip_grads_with_norm_, the rnn packing family
(pack_sequence with enforce_sorted, pad_packed_sequence with total_length, unpad_sequence, unpack_sequence,
PackedSequence fields and .to), and weight_norm / spectral_norm parametrizations' shapes and values."""

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters)
from torch.nn.utils import rnn as rnn_utils


def r4(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


def set_weights(module, seed):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)))


def show_error(label, fn):
    try:
        fn()
        print(label, "no error")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:120])


net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
set_weights(net, 0)
vec = parameters_to_vector(net.parameters())
print("p2v", tuple(vec.shape), r4(vec)[:5], vec.requires_grad)
vector_to_parameters(torch.arange(vec.numel(), dtype=torch.float32), net.parameters())
print("v2p", net[0].weight.tolist(), net[2].bias.tolist())
show_error("v2p_type", lambda: vector_to_parameters([1.0] * 11, net.parameters()))
show_error("v2p_short", lambda: vector_to_parameters(torch.zeros(5), net.parameters()))

set_weights(net, 1)


def fill_grads(scale=1.0):
    rng = np.random.default_rng(5)
    for p in net.parameters():
        p.grad = torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)) * scale


for norm_type in (2.0, 1, float("inf"), 0.5, "inf"):
    fill_grads()
    total = clip_grad_norm_(net.parameters(), max_norm=1.0, norm_type=norm_type)
    after = torch.cat([p.grad.flatten() for p in net.parameters()])
    nt = float(norm_type)
    print("clip", norm_type, round(total.item(), 4), round(after.abs().max().item() if nt == float("inf")
                                                              else after.abs().pow(nt).sum().pow(1 / nt).item(), 4))
for foreach in (True, False, None):
    fill_grads()
    print("foreach", foreach, round(clip_grad_norm_(list(net.parameters()), 0.5, foreach=foreach).item(), 4),
          r4(net[2].bias.grad))
fill_grads(0.01)
print("no_clip_needed", round(clip_grad_norm_(net.parameters(), 10.0).item(), 4), r4(net[2].bias.grad))
fill_grads()
net[0].bias.grad[0] = float("nan")
print("nan_total", clip_grad_norm_(net.parameters(), 1.0).item())
fill_grads()
net[0].bias.grad[0] = float("inf")
show_error("nonfinite", lambda: clip_grad_norm_(net.parameters(), 1.0, error_if_nonfinite=True))
print("no_grads", clip_grad_norm_([nn.Parameter(torch.ones(2))], 1.0).item())
single = nn.Parameter(torch.ones(4))
single.grad = torch.full((4,), 3.0)
print("single_tensor", clip_grad_norm_(single, 2.0).item(), r4(single.grad))
fill_grads()
clip_grad_value_(net.parameters(), clip_value=0.3)
print("clip_value", r4(net[0].weight.grad))
fill_grads()
grads = [p.grad for p in net.parameters()]
tn = nn.utils.get_total_norm(grads, norm_type=2.0)
nn.utils.clip_grads_with_norm_(net.parameters(), max_norm=1.0, total_norm=tn)
print("total_norm", round(tn.item(), 4), r4(net[2].weight.grad))

seqs = [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0, 5.0]), torch.tensor([6.0])]
show_error("enforce_sorted", lambda: rnn_utils.pack_sequence(seqs))
packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
print("packed", packed.data.tolist(), packed.batch_sizes.tolist(), packed.sorted_indices.tolist(),
      packed.unsorted_indices.tolist())
padded, lens = rnn_utils.pad_packed_sequence(packed, batch_first=True, total_length=5, padding_value=-1.0)
print("padded", padded.tolist(), lens.tolist())
print("unpacked", [s.tolist() for s in rnn_utils.unpack_sequence(packed)])
print("unpadded", [s.tolist() for s in rnn_utils.unpad_sequence(padded, lens, batch_first=True)])
show_error("total_length_short", lambda: rnn_utils.pad_packed_sequence(packed, total_length=2))
pp = rnn_utils.pack_padded_sequence(padded, lens, batch_first=True, enforce_sorted=False)
print("pack_padded", pp.data.tolist() == packed.data.tolist(), type(pp).__name__, pp.is_cuda)
print("to_double", pp.to(torch.float64).data.dtype, pp.to(torch.float64).batch_sizes.dtype)
show_error("zero_length", lambda: rnn_utils.pack_padded_sequence(padded, torch.tensor([2, 0, 1]), batch_first=True,
                                                                   enforce_sorted=False))
show_error("unsorted_lengths", lambda: rnn_utils.pack_padded_sequence(padded, [2, 3, 1], batch_first=True))
lstm = nn.LSTM(1, 2, batch_first=True)
set_weights(lstm, 4)
out, (h, c) = lstm(rnn_utils.pack_sequence([s.unsqueeze(-1) for s in seqs], enforce_sorted=False))
o_pad, o_len = rnn_utils.pad_packed_sequence(out, batch_first=True)
print("lstm_packed", tuple(o_pad.shape), o_len.tolist(), r4(h[0]), r4(o_pad[2, 1:]))

lin = nn.Linear(3, 2)
set_weights(lin, 6)
wn = nn.utils.parametrizations.weight_norm(lin, name="weight", dim=0)
orig = wn.parametrizations.weight
print("weight_norm", tuple(orig.original0.shape), tuple(orig.original1.shape), r4(orig.original0))
print("wn_weight_same", torch.allclose(wn.weight, torch.from_numpy(np.random.default_rng(6).standard_normal((2, 3))
                                                                  .astype(np.float32)), atol=1e-6))
with torch.no_grad():
    orig.original0.mul_(2.0)
print("wn_scaled_norms", r4(wn.weight.norm(dim=1)))
legacy = nn.utils.weight_norm(nn.Linear(3, 2), dim=None)
print("legacy_wn", tuple(legacy.weight_g.shape), tuple(legacy.weight_v.shape))
nn.utils.remove_weight_norm(legacy)
print("legacy_removed", hasattr(legacy, "weight_g"), type(legacy.weight).__name__)
sn = nn.utils.parametrizations.spectral_norm(nn.Linear(4, 3))
print("spectral", [k for k in sn.state_dict()], tuple(sn.parametrizations.weight.original.shape))
