"""DAGMM (Zong et al.): a compression network's latent with relative-Euclidean and cosine reconstruction features,
a GMM estimated from soft memberships (phi, mu, batched covariances), the sample energy via batched Cholesky,
logsumexp and log-determinants, the covariance diagonal penalty, and the percentile threshold on energies."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class DAGMM(nn.Module):
    def __init__(self, n_gmm=3, latent_dim=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 6), nn.Tanh(), nn.Linear(6, 1))
        self.decoder = nn.Sequential(nn.Linear(1, 6), nn.Tanh(), nn.Linear(6, 8))
        self.estimation = nn.Sequential(
            nn.Linear(latent_dim, 6), nn.Tanh(), nn.Dropout(p=0.5), nn.Linear(6, n_gmm), nn.Softmax(dim=1)
        )

    def relative_euclidean_distance(self, a, b):
        return (a - b).norm(2, dim=1) / a.norm(2, dim=1)

    def forward(self, x):
        enc = self.encoder(x)
        dec = self.decoder(enc)
        rec_cosine = F.cosine_similarity(x, dec, dim=1)
        rec_euclidean = self.relative_euclidean_distance(x, dec)
        z = torch.cat([enc, rec_euclidean.unsqueeze(-1), rec_cosine.unsqueeze(-1)], dim=1)
        return enc, dec, z, self.estimation(z)


def compute_gmm_params(z, gamma):
    N = gamma.size(0)
    sum_gamma = torch.sum(gamma, dim=0)
    phi = sum_gamma / N
    mu = torch.sum(gamma.unsqueeze(-1) * z.unsqueeze(1), dim=0) / sum_gamma.unsqueeze(-1)
    z_mu = z.unsqueeze(1) - mu.unsqueeze(0)
    z_mu_outer = z_mu.unsqueeze(-1) * z_mu.unsqueeze(-2)
    cov = torch.sum(gamma.unsqueeze(-1).unsqueeze(-1) * z_mu_outer, dim=0) / sum_gamma.unsqueeze(-1).unsqueeze(-1)
    return phi, mu, cov


def compute_energy(z, phi, mu, cov, eps=1e-12):
    k, D, _ = cov.size()
    z_mu = z.unsqueeze(1) - mu.unsqueeze(0)
    cov = cov + torch.eye(D).expand(k, D, D) * 1e-3
    L = torch.linalg.cholesky(cov)
    cov_inverse = torch.cholesky_inverse(L)
    det_cov = torch.diagonal(L, dim1=-2, dim2=-1).prod(-1) ** 2
    cov_diag = torch.sum(1 / cov.diagonal(dim1=-2, dim2=-1))
    exp_term_tmp = -0.5 * torch.sum(torch.sum(z_mu.unsqueeze(-1) * cov_inverse.unsqueeze(0), dim=-2) * z_mu, dim=-1)
    log_norm = 0.5 * torch.log(det_cov * (2 * math.pi) ** D)
    sample_energy = -torch.logsumexp(exp_term_tmp + torch.log(phi + eps) - log_norm, dim=1)
    return sample_energy, cov_diag, L


model = DAGMM()
x = torch.randn(32, 8) * 0.5 + 1
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    enc, dec, z, gamma = model(x)
    phi, mu, cov = compute_gmm_params(z, gamma)
    energy, cov_diag, L = compute_energy(z, phi, mu, cov)
    loss = F.mse_loss(dec, x) + 0.1 * energy.mean() + 0.005 * cov_diag
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), round(energy.mean().item(), 4), phi.detach())
print("shapes", z.shape, gamma.shape, mu.shape, cov.shape, L.shape, L.stride())
print("gamma rows sum", torch.allclose(gamma.sum(1), torch.ones(32)), gamma.grad_fn.name())
model.eval()
with torch.no_grad():
    _, _, z_tr, g_tr = model(x)
    phi, mu, cov = compute_gmm_params(z_tr, g_tr)
    test = torch.cat([torch.randn(4, 8) * 0.5 + 1, torch.randn(4, 8) * 3])
    _, _, z_te, _ = model(test)
    e_train, _, _ = compute_energy(z_tr, phi, mu, cov)
    e_test, _, L = compute_energy(z_te, phi, mu, cov)
thr = torch.quantile(e_train, 0.8)
print("threshold", round(thr.item(), 3), "pred", (e_test > thr).long())
print(
    "logdet via cholesky",
    torch.allclose(2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1), torch.logdet(L @ L.mT), atol=1e-4),
)
Lb = torch.linalg.cholesky(torch.tensor([[[4.0, 2.0], [2.0, 3.0]], [[1.0, 0.5], [0.5, 9.0]]]))
print("cholesky_inverse", torch.cholesky_inverse(Lb), torch.cholesky_inverse(Lb.mT, upper=True))
print("diag_embed", torch.diag_embed(torch.tensor([[1.0, 2.0]]), offset=1), torch.diagonal(Lb, 0, -2, -1))
try:
    torch.cholesky_inverse(torch.randn(2, 3))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.linalg.cholesky(torch.zeros(2, 3, 3))
except torch.linalg.LinAlgError as e:
    print("LinAlgError", e)
mixture = torch.distributions.MixtureSameFamily(
    torch.distributions.Categorical(probs=phi),
    torch.distributions.MultivariateNormal(mu, covariance_matrix=cov + 1e-3 * torch.eye(3)),
)
print("mixture energy agrees", torch.allclose(-mixture.log_prob(z_te), e_test, atol=1e-3))
print("mixture", mixture.batch_shape, mixture.event_shape, mixture.mean.shape)
