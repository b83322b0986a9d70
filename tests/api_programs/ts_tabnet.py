"""TabNet as pytorch-tabnet writes it: sparsemax and entmax15 through torch.autograd.Function (sort, cumsum,
gather, save_for_backward) checked with gradcheck in float64, ghost batch norm over torch.chunk with virtual batches
(running statistics, momentum), GLU feature transformers with sqrt(0.5) residual scaling, attentive transformers
with prior scales and the sparsity entropy loss, per-step masks aggregated into feature importances, and the
categorical embedding generator splicing embedded columns between numeric ones."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Function, gradcheck

torch.set_printoptions(precision=4, sci_mode=False)


def det_(module, scale=0.3):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * 1.1 + 0.5 * i).view_as(p) * scale)
    return module


def _make_ix_like(input, dim=0):
    d = input.size(dim)
    rho = torch.arange(1, d + 1, device=input.device, dtype=input.dtype)
    view = [1] * input.dim()
    view[0] = -1
    return rho.view(view).transpose(0, dim)


class SparsemaxFunction(Function):
    @staticmethod
    def forward(ctx, input, dim=-1):
        ctx.dim = dim
        max_val, _ = input.max(dim=dim, keepdim=True)
        input = input - max_val
        tau, supp_size = SparsemaxFunction._threshold_and_support(input, dim=dim)
        output = torch.clamp(input - tau, min=0)
        ctx.save_for_backward(supp_size, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        supp_size, output = ctx.saved_tensors
        dim = ctx.dim
        grad_input = grad_output.clone()
        grad_input[output == 0] = 0
        v_hat = grad_input.sum(dim=dim) / supp_size.to(output.dtype).squeeze()
        v_hat = v_hat.unsqueeze(dim)
        grad_input = torch.where(output != 0, grad_input - v_hat, grad_input)
        return grad_input, None

    @staticmethod
    def _threshold_and_support(input, dim=-1):
        input_srt, _ = torch.sort(input, descending=True, dim=dim)
        input_cumsum = input_srt.cumsum(dim) - 1
        rhos = _make_ix_like(input, dim)
        support = rhos * input_srt > input_cumsum
        support_size = support.sum(dim=dim).unsqueeze(dim)
        tau = input_cumsum.gather(dim, support_size - 1)
        tau /= support_size.to(input.dtype)
        return tau, support_size


class Entmax15Function(Function):
    @staticmethod
    def forward(ctx, input, dim=-1):
        ctx.dim = dim
        max_val, _ = input.max(dim=dim, keepdim=True)
        input = (input - max_val) / 2
        tau_star, _ = Entmax15Function._threshold_and_support(input, dim)
        output = torch.clamp(input - tau_star, min=0) ** 2
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (Y,) = ctx.saved_tensors
        gppr = Y.sqrt()
        dX = grad_output * gppr
        q = dX.sum(ctx.dim) / gppr.sum(ctx.dim)
        q = q.unsqueeze(ctx.dim)
        dX -= q * gppr
        return dX, None

    @staticmethod
    def _threshold_and_support(input, dim=-1):
        Xsrt, _ = torch.sort(input, descending=True, dim=dim)
        rho = _make_ix_like(input, dim)
        mean = Xsrt.cumsum(dim) / rho
        mean_sq = (Xsrt ** 2).cumsum(dim) / rho
        ss = rho * (mean_sq - mean ** 2)
        delta = (1 - ss) / rho
        delta_nz = torch.clamp(delta, 0)
        tau = mean - torch.sqrt(delta_nz)
        support_size = (tau <= Xsrt).sum(dim).unsqueeze(dim)
        tau_star = tau.gather(dim, support_size - 1)
        return tau_star, support_size


sparsemax = SparsemaxFunction.apply
entmax15 = Entmax15Function.apply
z = torch.tensor([[1.0, 0.8, 0.1, -1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.5, 0.4, 0.2]])
print("sparsemax", sparsemax(z, -1), sparsemax(z, 0).sum(0))
print("entmax15", entmax15(z, -1))
print("softmax", F.softmax(z, -1)[0])
zz = torch.tensor([[0.3, 0.1, -0.2, 0.25], [1.0, 0.9, -0.5, 0.0]], dtype=torch.float64, requires_grad=True)
print("gradcheck", gradcheck(lambda a: sparsemax(a, -1), (zz,)), gradcheck(lambda a: entmax15(a, -1), (zz,)))
w = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64)
(sparsemax(zz, -1) * w).sum().backward()
print("sparsemax grad", zz.grad, sparsemax(zz, -1).grad_fn.__class__.__name__)


class GBN(nn.Module):
    def __init__(self, input_dim, virtual_batch_size=4, momentum=0.01):
        super().__init__()
        self.virtual_batch_size = virtual_batch_size
        self.bn = nn.BatchNorm1d(input_dim, momentum=momentum)

    def forward(self, x):
        chunks = x.chunk(int(torch.ceil(torch.tensor(x.shape[0] / self.virtual_batch_size)).item()), 0)
        return torch.cat([self.bn(x_) for x_ in chunks], dim=0)


class GLU_Layer(nn.Module):
    def __init__(self, input_dim, output_dim, fc=None, vbs=4):
        super().__init__()
        self.output_dim = output_dim
        self.fc = fc if fc is not None else nn.Linear(input_dim, 2 * output_dim, bias=False)
        self.bn = GBN(2 * output_dim, virtual_batch_size=vbs)

    def forward(self, x):
        x = self.bn(self.fc(x))
        return torch.mul(x[:, :self.output_dim], torch.sigmoid(x[:, self.output_dim:]))


class FeatTransformer(nn.Module):
    def __init__(self, input_dim, output_dim, shared, n_independent=1):
        super().__init__()
        self.shared = nn.ModuleList([GLU_Layer(input_dim if i == 0 else output_dim, output_dim, fc)
                                     for i, fc in enumerate(shared)])
        self.specifics = nn.ModuleList([GLU_Layer(output_dim, output_dim) for _ in range(n_independent)])
        self.scale = torch.sqrt(torch.FloatTensor([0.5]))

    def forward(self, x):
        x = self.shared[0](x)
        for glu in list(self.shared[1:]) + list(self.specifics):
            x = torch.add(x, glu(x)) * self.scale
        return x


class AttentiveTransformer(nn.Module):
    def __init__(self, input_dim, group_dim):
        super().__init__()
        self.fc = nn.Linear(input_dim, group_dim, bias=False)
        self.bn = GBN(group_dim)

    def forward(self, priors, processed_feat):
        x = self.bn(self.fc(processed_feat))
        return sparsemax(torch.mul(x, priors), -1)


class EmbeddingGenerator(nn.Module):
    def __init__(self, input_dim, cat_dims, cat_idxs, cat_emb_dims):
        super().__init__()
        self.embeddings = nn.ModuleList([nn.Embedding(d, e) for d, e in zip(cat_dims, cat_emb_dims)])
        self.continuous_idx = torch.ones(input_dim, dtype=torch.bool)
        self.continuous_idx[cat_idxs] = 0
        self.post_embed_dim = int(input_dim + sum(cat_emb_dims) - len(cat_emb_dims))

    def forward(self, x):
        cols, c = [], 0
        for feat_init_idx, is_continuous in enumerate(self.continuous_idx):
            if is_continuous:
                cols.append(x[:, feat_init_idx].float().view(-1, 1))
            else:
                cols.append(self.embeddings[c](x[:, feat_init_idx].long()))
                c += 1
        return torch.cat(cols, dim=1)


N, n_d, n_a, n_steps, gamma = 8, 4, 4, 3, 1.3
x_raw = torch.stack([torch.linspace(-1, 1, N), (torch.arange(N) % 3).float(), torch.cos(torch.arange(N) * 0.9),
                     (torch.arange(N) % 2).float(), torch.linspace(0, 2, N) ** 2], 1)
emb = det_(EmbeddingGenerator(5, [3, 2], [1, 3], [2, 1]))
print("post_embed_dim", emb.post_embed_dim, emb.continuous_idx)
x = emb(x_raw)
D = x.shape[1]
print("embedded", tuple(x.shape), x[1])
initial_bn = nn.BatchNorm1d(D, momentum=0.01)
shared = nn.ModuleList([nn.Linear(D, 2 * (n_d + n_a), bias=False), nn.Linear(n_d + n_a, 2 * (n_d + n_a), bias=False)])
initial = FeatTransformer(D, n_d + n_a, shared)
steps = nn.ModuleList([FeatTransformer(D, n_d + n_a, shared) for _ in range(n_steps)])
atts = nn.ModuleList([AttentiveTransformer(n_a, D) for _ in range(n_steps)])
head = nn.Linear(n_d, 2)
net = det_(nn.ModuleList([emb, initial_bn, initial, steps, atts, head]))
print("shared fc is same object", steps[0].shared[0].fc is steps[2].shared[0].fc, "unique params",
      sum(p.numel() for p in net.parameters()))


def tabnet_forward(x):
    x = initial_bn(x)
    prior = torch.ones(x.shape).to(x.device)
    M_loss, res, masks = 0, 0, []
    att = initial(x)[:, n_d:]
    for step in range(n_steps):
        M = atts[step](prior, att)
        M_loss += torch.mean(torch.sum(torch.mul(M, torch.log(M + 1e-15)), dim=1))
        prior = torch.mul(gamma - M, prior)
        out = steps[step](torch.mul(M, x))
        d = nn.ReLU()(out[:, :n_d])
        res = torch.add(res, d)
        att = out[:, n_d:]
        masks.append(M)
    return head(res), M_loss / n_steps, masks


logits, m_loss, masks = tabnet_forward(x)
print("logits", logits[:3], "M_loss", round(m_loss.item(), 4))
print("mask rows sum to 1", torch.allclose(torch.stack(masks).sum(-1), torch.ones(n_steps, N)),
      "sparsity", [round((m == 0).float().mean().item(), 4) for m in masks])
print("bn running", initial_bn.running_mean[:3], initial_bn.num_batches_tracked,
      atts[0].bn.bn.num_batches_tracked)
explain = sum(m * 1.0 for m in masks)
importance = explain.sum(0) / explain.sum()
print("feature importance", importance)
y = (x_raw[:, 0] > 0).long()
loss = F.cross_entropy(logits, y) - 1e-3 * m_loss
loss.backward()
print("loss", round(loss.item(), 4), "shared grad", shared[0].weight.grad.abs().sum() > 0,
      "emb grad rows", emb.embeddings[0].weight.grad.abs().sum(1))
net.eval()
with torch.no_grad():
    l2, _, _ = tabnet_forward(x)
print("eval logits", l2[:2], initial_bn.training, atts[1].bn.bn.training)
