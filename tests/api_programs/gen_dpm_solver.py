"""DPM-Solver as its reference code is organized: a discrete VP noise schedule queried through a piecewise-linear
interpolate_fn (sort/gather/where over keypoints), marginal log-mean, std and half-log-SNR lambda with its inverse,
time-uniform / logSNR-uniform / quadratic step spacings, first-, second- and third-order singlestep updates,
multistep DPM-Solver++(2M, 3M) with data prediction, and convergence of all of them on an analytic denoiser."""


import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


def interpolate_fn(x, xp, yp):
    """Piecewise-linear f(x) through keypoints (xp, yp), linear extrapolation outside; x [N, C], xp/yp [C, K]."""
    N, K = x.shape[0], xp.shape[1]
    all_x = torch.cat([x.unsqueeze(2), xp.unsqueeze(0).repeat((N, 1, 1))], dim=2)
    sorted_all_x, x_indices = torch.sort(all_x, dim=2)
    x_idx = torch.argmin(x_indices, dim=2)
    cand_start_idx = x_idx - 1
    start_idx = torch.where(torch.eq(x_idx, 0), torch.tensor(1, device=x.device),
                            torch.where(torch.eq(x_idx, K), torch.tensor(K - 2, device=x.device), cand_start_idx))
    end_idx = torch.where(torch.eq(start_idx, cand_start_idx), start_idx + 2, start_idx + 1)
    start_x = torch.gather(sorted_all_x, dim=2, index=start_idx.unsqueeze(2)).squeeze(2)
    end_x = torch.gather(sorted_all_x, dim=2, index=end_idx.unsqueeze(2)).squeeze(2)
    start_idx2 = torch.where(torch.eq(x_idx, 0), torch.tensor(0, device=x.device),
                             torch.where(torch.eq(x_idx, K), torch.tensor(K - 2, device=x.device), cand_start_idx))
    y_positions_expanded = yp.unsqueeze(0).expand(N, -1, -1)
    start_y = torch.gather(y_positions_expanded, dim=2, index=start_idx2.unsqueeze(2)).squeeze(2)
    end_y = torch.gather(y_positions_expanded, dim=2, index=(start_idx2 + 1).unsqueeze(2)).squeeze(2)
    return start_y + (x - start_x) * (end_y - start_y) / (end_x - start_x)


class NoiseScheduleVP:
    def __init__(self, betas):
        log_alphas = 0.5 * torch.log(1 - betas).cumsum(dim=0)
        self.total_N = len(log_alphas)
        self.T = 1.0
        self.t_array = torch.linspace(0.0, 1.0, self.total_N + 1)[1:].reshape((1, -1)).float()
        self.log_alpha_array = log_alphas.reshape((1, -1)).float()

    def marginal_log_mean_coeff(self, t):
        return interpolate_fn(t.reshape((-1, 1)), self.t_array, self.log_alpha_array).reshape(-1)

    def marginal_alpha(self, t):
        return torch.exp(self.marginal_log_mean_coeff(t))

    def marginal_std(self, t):
        return torch.sqrt(1.0 - torch.exp(2.0 * self.marginal_log_mean_coeff(t)))

    def marginal_lambda(self, t):
        log_mean_coeff = self.marginal_log_mean_coeff(t)
        log_std = 0.5 * torch.log(1.0 - torch.exp(2.0 * log_mean_coeff))
        return log_mean_coeff - log_std

    def inverse_lambda(self, lamb):
        log_alpha = -0.5 * torch.logaddexp(torch.zeros((1,)), -2.0 * lamb)
        t = interpolate_fn(log_alpha.reshape((-1, 1)), torch.flip(self.log_alpha_array, [1]),
                           torch.flip(self.t_array, [1]))
        return t.reshape((-1,))


betas = torch.linspace(1e-4, 0.02, 1000, dtype=torch.float64)
ns = NoiseScheduleVP(betas)
t = torch.tensor([1e-3, 0.25, 0.5, 0.999])
print("alpha", ns.marginal_alpha(t), "\nstd", ns.marginal_std(t), "\nlambda", ns.marginal_lambda(t))
print("inverse_lambda roundtrip", r(ns.inverse_lambda(ns.marginal_lambda(t)), 4))
print("interp extrapolates", interpolate_fn(torch.tensor([[-1.0], [0.5], [3.0]]), torch.tensor([[0.0, 1.0, 2.0]]),
                                            torch.tensor([[0.0, 10.0, 40.0]])).flatten())


def get_time_steps(skip_type, t_T, t_0, N):
    if skip_type == "logSNR":
        lambda_T = ns.marginal_lambda(torch.tensor(t_T))
        lambda_0 = ns.marginal_lambda(torch.tensor(t_0))
        logSNR_steps = torch.linspace(lambda_T.item(), lambda_0.item(), N + 1)
        return ns.inverse_lambda(logSNR_steps)
    if skip_type == "time_uniform":
        return torch.linspace(t_T, t_0, N + 1)
    if skip_type == "time_quadratic":
        return torch.linspace(t_T ** 0.5, t_0 ** 0.5, N + 1).pow(2)
    raise ValueError(f"Unsupported skip_type {skip_type}, need to be 'logSNR' or 'time_uniform' or 'time_quadratic'")


for kind in ["logSNR", "time_uniform", "time_quadratic"]:
    print(f"{kind:15s}", r(get_time_steps(kind, 1.0, 1e-3, 5), 6))
try:
    get_time_steps("karras", 1.0, 1e-3, 5)
except ValueError as e:
    print("ValueError:", e)

MU, S = torch.tensor([1.0, -0.5, 0.3]), torch.tensor([0.5, 0.8, 0.2])


def data_pred(x, t):
    a = ns.marginal_alpha(t).view(-1, 1)
    s = ns.marginal_std(t).view(-1, 1)
    return (a * S ** 2 * x + s ** 2 * MU) / (a ** 2 * S ** 2 + s ** 2)


def noise_pred(x, t):
    a = ns.marginal_alpha(t).view(-1, 1)
    s = ns.marginal_std(t).view(-1, 1)
    return (x - a * data_pred(x, t)) / s


def first_order(x, s, t):
    lam_s, lam_t = ns.marginal_lambda(s), ns.marginal_lambda(t)
    h = lam_t - lam_s
    sig_s, sig_t = ns.marginal_std(s), ns.marginal_std(t)
    alpha_t = ns.marginal_alpha(t)
    phi_1 = torch.expm1(-h)
    return (sig_t / sig_s).view(-1, 1) * x - (alpha_t * phi_1).view(-1, 1) * data_pred(x, s)


def second_order_singlestep(x, s, t, r1=0.5):
    lam_s, lam_t = ns.marginal_lambda(s), ns.marginal_lambda(t)
    h = lam_t - lam_s
    s1 = ns.inverse_lambda(lam_s + r1 * h)
    sig_s, sig_s1, sig_t = ns.marginal_std(s), ns.marginal_std(s1), ns.marginal_std(t)
    alpha_s1, alpha_t = ns.marginal_alpha(s1), ns.marginal_alpha(t)
    phi_11 = torch.expm1(-r1 * h)
    phi_1 = torch.expm1(-h)
    m0 = data_pred(x, s)
    x_s1 = (sig_s1 / sig_s).view(-1, 1) * x - (alpha_s1 * phi_11).view(-1, 1) * m0
    m1 = data_pred(x_s1, s1)
    return (sig_t / sig_s).view(-1, 1) * x - (alpha_t * phi_1).view(-1, 1) * m0 \
        - (0.5 / r1) * (alpha_t * phi_1).view(-1, 1) * (m1 - m0)


def multistep(x, steps, order):
    ms, ts = [data_pred(x, steps[0].view(1))], [steps[0]]
    for i in range(1, len(steps)):
        t = steps[i]
        use = min(order, i, len(steps) - i) if order > 1 else 1
        s = ts[-1]
        lam_s, lam_t = ns.marginal_lambda(s.view(1)), ns.marginal_lambda(t.view(1))
        h = lam_t - lam_s
        sig_s, sig_t = ns.marginal_std(s.view(1)), ns.marginal_std(t.view(1))
        alpha_t = ns.marginal_alpha(t.view(1))
        phi_1 = torch.expm1(-h)
        m0 = ms[-1]
        if use == 1:
            x = sig_t / sig_s * x - alpha_t * phi_1 * m0
        elif use == 2:
            h_0 = lam_s - ns.marginal_lambda(ts[-2].view(1))
            r0 = h_0 / h
            D1 = (1.0 / r0) * (m0 - ms[-2])
            x = sig_t / sig_s * x - alpha_t * phi_1 * m0 - 0.5 * alpha_t * phi_1 * D1
        else:
            lam_p1, lam_p2 = ns.marginal_lambda(ts[-2].view(1)), ns.marginal_lambda(ts[-3].view(1))
            h_0, h_1 = lam_s - lam_p1, lam_p1 - lam_p2
            r0, r1 = h_0 / h, h_1 / h
            D1_0 = (1.0 / r0) * (m0 - ms[-2])
            D1_1 = (1.0 / r1) * (ms[-2] - ms[-3])
            D1 = D1_0 + (r0 / (r0 + r1)) * (D1_0 - D1_1)
            D2 = (1.0 / (r0 + r1)) * (D1_0 - D1_1)
            phi_2 = phi_1 / h + 1.0
            phi_3 = phi_2 / h - 0.5
            x = sig_t / sig_s * x - alpha_t * phi_1 * m0 + alpha_t * phi_2 * D1 - alpha_t * phi_3 * D2
        ts.append(t)
        ms.append(data_pred(x, t.view(1)))
    return x


def fixed_normal(n, d, phase):
    u = torch.remainder(torch.arange(n * d, dtype=torch.float64) * 0.7548776662 + phase, 1.0).clamp(1e-4, 1 - 1e-4)
    return torch.special.ndtri(u).float().view(n, d)


xT = fixed_normal(512, 3, 0.25)
ref_steps = get_time_steps("logSNR", 1.0, 1e-3, 100)
ref = multistep(xT.clone(), ref_steps, 3)
print("reference mean", r(ref.mean(0), 3), "std", r(ref.std(0), 3))
for nfe in [6, 10, 20]:
    steps = get_time_steps("logSNR", 1.0, 1e-3, nfe)
    x1 = xT.clone()
    for i in range(nfe):
        x1 = first_order(x1, steps[i].view(1), steps[i + 1].view(1))
    steps2 = get_time_steps("logSNR", 1.0, 1e-3, nfe // 2)
    x2 = xT.clone()
    for i in range(nfe // 2):
        x2 = second_order_singlestep(x2, steps2[i].view(1), steps2[i + 1].view(1))
    errs = [(x - ref).abs().mean().item() for x in (x1, x2, multistep(xT.clone(), steps, 2),
                                                    multistep(xT.clone(), steps, 3))]
    print(f"nfe {nfe:2d} err  dpm1 {errs[0]:.5f}  dpm2-single {errs[1]:.5f}  ++2M {errs[2]:.5f}  ++3M {errs[3]:.5f}")
print("noise_pred at t=0.5", r(noise_pred(xT[:2], torch.tensor([0.5, 0.5])), 6))
