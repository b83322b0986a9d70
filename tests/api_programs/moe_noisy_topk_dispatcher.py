"""Shazeer et al.'s sparsely-gated MoE as the widely copied reference implementation writes it: noisy top-k gating
with a softplus noise scale, the smooth load estimate through Normal.cdf, cv_squared importance and load losses,
and the SparseDispatcher (nonzero, sort with indices, split by counts, exp/log combine with index_add)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions.normal import Normal


class SparseDispatcher:
    def __init__(self, num_experts, gates):
        self._gates = gates
        self._num_experts = num_experts
        sorted_experts, index_sorted_experts = torch.nonzero(gates).sort(0)
        _, self._expert_index = sorted_experts.split(1, dim=1)
        self._batch_index = torch.nonzero(gates)[index_sorted_experts[:, 1], 0]
        self._part_sizes = (gates > 0).sum(0).tolist()
        gates_exp = gates[self._batch_index.flatten()]
        self._nonzero_gates = torch.gather(gates_exp, 1, self._expert_index)

    def dispatch(self, inp):
        inp_exp = inp[self._batch_index].squeeze(1)
        return torch.split(inp_exp, self._part_sizes, dim=0)

    def combine(self, expert_out, multiply_by_gates=True):
        stitched = torch.cat(expert_out, 0).exp()
        if multiply_by_gates:
            stitched = stitched.mul(self._nonzero_gates)
        zeros = torch.zeros(self._gates.size(0), expert_out[-1].size(1), requires_grad=True, device=stitched.device)
        combined = zeros.index_add(0, self._batch_index, stitched.float())
        combined[combined == 0] = torch.finfo(float).eps
        return combined.log()

    def expert_to_gates(self):
        return torch.split(self._nonzero_gates, self._part_sizes, dim=0)


def cv_squared(x):
    eps = 1e-10
    if x.shape[0] == 1:
        return torch.tensor([0], device=x.device, dtype=x.dtype)
    return x.float().var() / (x.float().mean() ** 2 + eps)


class MoE(nn.Module):
    def __init__(self, input_size, output_size, num_experts, hidden_size, k=2):
        super().__init__()
        self.num_experts, self.k = num_experts, k
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(input_size, hidden_size), nn.ReLU(),
                                                    nn.Linear(hidden_size, output_size), nn.Softmax(1))
                                      for _ in range(num_experts)])
        self.w_gate = nn.Parameter(torch.zeros(input_size, num_experts), requires_grad=True)
        self.w_noise = nn.Parameter(torch.zeros(input_size, num_experts), requires_grad=True)
        self.softplus = nn.Softplus()
        self.register_buffer("mean", torch.tensor([0.0]))
        self.register_buffer("std", torch.tensor([1.0]))

    def _prob_in_top_k(self, clean_values, noisy_values, noise_stddev, noisy_top_values):
        batch = clean_values.size(0)
        m = noisy_top_values.size(1)
        top_values_flat = noisy_top_values.flatten()
        threshold_positions_if_in = torch.arange(batch, device=clean_values.device) * m + self.k
        threshold_if_in = torch.unsqueeze(torch.gather(top_values_flat, 0, threshold_positions_if_in), 1)
        is_in = torch.gt(noisy_values, threshold_if_in)
        threshold_if_out = torch.unsqueeze(torch.gather(top_values_flat, 0, threshold_positions_if_in - 1), 1)
        normal = Normal(self.mean, self.std)
        prob_if_in = normal.cdf((clean_values - threshold_if_in) / noise_stddev)
        prob_if_out = normal.cdf((clean_values - threshold_if_out) / noise_stddev)
        return torch.where(is_in, prob_if_in, prob_if_out)

    def noisy_top_k_gating(self, x, train, noise, noise_epsilon=1e-2):
        clean_logits = x @ self.w_gate
        if train:
            raw_noise_stddev = x @ self.w_noise
            noise_stddev = self.softplus(raw_noise_stddev) + noise_epsilon
            logits = clean_logits + noise * noise_stddev
        else:
            logits = clean_logits
        top_logits, top_indices = logits.topk(min(self.k + 1, self.num_experts), dim=1)
        top_k_logits = top_logits[:, :self.k]
        top_k_indices = top_indices[:, :self.k]
        top_k_gates = F.softmax(top_k_logits, dim=1)
        zeros = torch.zeros_like(logits, requires_grad=True)
        gates = zeros.scatter(1, top_k_indices, top_k_gates)
        if train and self.k < self.num_experts:
            load = self._prob_in_top_k(clean_logits, logits, noise_stddev, top_logits).sum(0)
        else:
            load = (gates > 0).sum(0)
        return gates, load

    def forward(self, x, noise=None, loss_coef=1e-2):
        gates, load = self.noisy_top_k_gating(x, noise is not None, noise)
        importance = gates.sum(0)
        loss = (cv_squared(importance) + cv_squared(load)) * loss_coef
        dispatcher = SparseDispatcher(self.num_experts, gates)
        expert_inputs = dispatcher.dispatch(x)
        expert_outputs = [self.experts[i](expert_inputs[i]) for i in range(self.num_experts)]
        return dispatcher.combine(expert_outputs), loss, gates, load


torch.manual_seed(0)
moe = MoE(input_size=6, output_size=5, num_experts=4, hidden_size=8, k=2)
with torch.no_grad():
    moe.w_gate.copy_(torch.cos(torch.arange(24.0).view(6, 4) * 0.7))
    moe.w_noise.copy_(torch.sin(torch.arange(24.0).view(6, 4) * 0.3) * 0.5)
x = torch.sin(torch.arange(60.0).view(10, 6) * 0.41)
noise = torch.cos(torch.arange(40.0).view(10, 4) * 1.7)

y, loss, gates, load = moe(x, noise=noise)
print("y:", tuple(y.shape), y.dtype, y.grad_fn.name())
print("y[:2]:", y[:2].round(decimals=4).tolist())
print("gates nonzero per row:", (gates > 0).sum(1).tolist())
print("load (smooth):", load.round(decimals=4).tolist(), load.grad_fn.name())
print("aux loss:", round(loss.item(), 6))

d = SparseDispatcher(4, gates.detach())
print("part sizes:", d._part_sizes, "batch index:", d._batch_index.tolist())
print("expert gates:", [g.flatten().round(decimals=4).tolist() for g in d.expert_to_gates()])
print("dispatch shapes:", [tuple(t.shape) for t in d.dispatch(x)])

y_eval, loss_eval, _, load_eval = moe(x)
print("eval load (counts):", load_eval.tolist(), load_eval.dtype, "eval loss:", round(loss_eval.item(), 6))
print("cv_squared single:", cv_squared(torch.tensor([3.0])).tolist())

loss_total = -y.mean() + loss
loss_total.backward()
print("w_gate grad:", moe.w_gate.grad.abs().sum().round(decimals=4).item(),
      "w_noise grad:", moe.w_noise.grad.abs().sum().round(decimals=4).item())
used = [i for i, n in enumerate(d._part_sizes) if n > 0]
print("experts with grads:", [i for i, e in enumerate(moe.experts) if e[0].weight.grad is not None], used)

try:
    torch.split(x, [3, 3, 3], dim=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
except Exception as e:
    print(type(e).__name__, e)
