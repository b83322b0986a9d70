"""diffusers-style noise schedulers written inline: betas_for_alpha_bar (squaredcos_cap_v2), linear and
scaled_linear betas in float32 via torch.linspace, alphas_cumprod, set_timesteps with "leading"/"trailing"
spacing, DDPMScheduler.add_noise/get_velocity/step (epsilon, sample and v_prediction; fixed_small variance with a
seeded torch.Generator), DDIMScheduler.step with eta, SNR weighting, and a ten-step sampling loop."""

import math

import numpy as np
import torch

torch.set_printoptions(precision=4)


def betas_for_alpha_bar(num_diffusion_timesteps, max_beta=0.999):
    def alpha_bar_fn(t):
        return math.cos((t + 0.008) / 1.008 * math.pi / 2) ** 2

    betas = []
    for i in range(num_diffusion_timesteps):
        t1, t2 = i / num_diffusion_timesteps, (i + 1) / num_diffusion_timesteps
        betas.append(min(1 - alpha_bar_fn(t2) / alpha_bar_fn(t1), max_beta))
    return torch.tensor(betas, dtype=torch.float32)


class DDPMScheduler:
    order = 1

    def __init__(self, num_train_timesteps=100, beta_start=0.0001, beta_end=0.02, beta_schedule="linear",
                 prediction_type="epsilon", clip_sample=True, clip_sample_range=1.0, timestep_spacing="leading"):
        if beta_schedule == "linear":
            self.betas = torch.linspace(beta_start, beta_end, num_train_timesteps, dtype=torch.float32)
        elif beta_schedule == "scaled_linear":
            self.betas = torch.linspace(beta_start ** 0.5, beta_end ** 0.5, num_train_timesteps,
                                        dtype=torch.float32) ** 2
        elif beta_schedule == "squaredcos_cap_v2":
            self.betas = betas_for_alpha_bar(num_train_timesteps)
        else:
            raise NotImplementedError(f"{beta_schedule} is not implemented for {self.__class__}")
        self.alphas = 1.0 - self.betas
        self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)
        self.one = torch.tensor(1.0)
        self.num_train_timesteps = num_train_timesteps
        self.prediction_type, self.clip_sample, self.clip_sample_range = prediction_type, clip_sample, \
            clip_sample_range
        self.timestep_spacing = timestep_spacing
        self.num_inference_steps = None
        self.timesteps = torch.from_numpy(np.arange(0, num_train_timesteps)[::-1].copy())

    def set_timesteps(self, num_inference_steps):
        if num_inference_steps > self.num_train_timesteps:
            raise ValueError(f"`num_inference_steps`: {num_inference_steps} cannot be larger than "
                             f"`self.config.train_timesteps`: {self.num_train_timesteps}")
        self.num_inference_steps = num_inference_steps
        if self.timestep_spacing == "leading":
            step_ratio = self.num_train_timesteps // num_inference_steps
            timesteps = (np.arange(0, num_inference_steps) * step_ratio).round()[::-1].copy().astype(np.int64)
        elif self.timestep_spacing == "trailing":
            step_ratio = self.num_train_timesteps / num_inference_steps
            timesteps = np.round(np.arange(self.num_train_timesteps, 0, -step_ratio)).astype(np.int64) - 1
        else:
            raise ValueError(f"{self.timestep_spacing} is not supported.")
        self.timesteps = torch.from_numpy(timesteps)

    def previous_timestep(self, t):
        if self.num_inference_steps is None:
            return t - 1
        return t - self.num_train_timesteps // self.num_inference_steps

    def add_noise(self, original_samples, noise, timesteps):
        alphas_cumprod = self.alphas_cumprod.to(dtype=original_samples.dtype)
        sqrt_alpha_prod = alphas_cumprod[timesteps] ** 0.5
        sqrt_alpha_prod = sqrt_alpha_prod.flatten()
        while len(sqrt_alpha_prod.shape) < len(original_samples.shape):
            sqrt_alpha_prod = sqrt_alpha_prod.unsqueeze(-1)
        sqrt_one_minus = ((1 - alphas_cumprod[timesteps]) ** 0.5).flatten()
        while len(sqrt_one_minus.shape) < len(original_samples.shape):
            sqrt_one_minus = sqrt_one_minus.unsqueeze(-1)
        return sqrt_alpha_prod * original_samples + sqrt_one_minus * noise

    def get_velocity(self, sample, noise, timesteps):
        a = self.alphas_cumprod[timesteps].sqrt().view(-1, *([1] * (sample.ndim - 1)))
        s = (1 - self.alphas_cumprod[timesteps]).sqrt().view(-1, *([1] * (sample.ndim - 1)))
        return a * noise - s * sample

    def _get_variance(self, t):
        prev_t = self.previous_timestep(t)
        alpha_prod_t = self.alphas_cumprod[t]
        alpha_prod_t_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.one
        current_beta_t = 1 - alpha_prod_t / alpha_prod_t_prev
        variance = (1 - alpha_prod_t_prev) / (1 - alpha_prod_t) * current_beta_t
        return torch.clamp(variance, min=1e-20)

    def step(self, model_output, timestep, sample, generator=None):
        t = timestep
        prev_t = self.previous_timestep(t)
        alpha_prod_t = self.alphas_cumprod[t]
        alpha_prod_t_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.one
        beta_prod_t, beta_prod_t_prev = 1 - alpha_prod_t, 1 - alpha_prod_t_prev
        current_alpha_t = alpha_prod_t / alpha_prod_t_prev
        current_beta_t = 1 - current_alpha_t
        if self.prediction_type == "epsilon":
            pred_original_sample = (sample - beta_prod_t ** 0.5 * model_output) / alpha_prod_t ** 0.5
        elif self.prediction_type == "sample":
            pred_original_sample = model_output
        elif self.prediction_type == "v_prediction":
            pred_original_sample = alpha_prod_t ** 0.5 * sample - beta_prod_t ** 0.5 * model_output
        else:
            raise ValueError(f"prediction_type given as {self.prediction_type} must be one of `epsilon`, `sample`"
                             " or `v_prediction`  for the DDPMScheduler.")
        if self.clip_sample:
            pred_original_sample = pred_original_sample.clamp(-self.clip_sample_range, self.clip_sample_range)
        orig_coeff = (alpha_prod_t_prev ** 0.5 * current_beta_t) / beta_prod_t
        cur_coeff = current_alpha_t ** 0.5 * beta_prod_t_prev / beta_prod_t
        pred_prev_sample = orig_coeff * pred_original_sample + cur_coeff * sample
        variance = 0
        if t > 0:
            variance_noise = torch.randn(model_output.shape, generator=generator, dtype=model_output.dtype)
            variance = (self._get_variance(t) ** 0.5) * variance_noise
        return pred_prev_sample + variance, pred_original_sample


class DDIMScheduler(DDPMScheduler):
    def step(self, model_output, timestep, sample, eta=0.0, generator=None):
        prev_timestep = timestep - self.num_train_timesteps // self.num_inference_steps
        alpha_prod_t = self.alphas_cumprod[timestep]
        alpha_prod_t_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.one
        beta_prod_t = 1 - alpha_prod_t
        pred_original_sample = (sample - beta_prod_t ** 0.5 * model_output) / alpha_prod_t ** 0.5
        pred_epsilon = model_output
        variance = (1 - alpha_prod_t_prev) / (1 - alpha_prod_t) * (1 - alpha_prod_t / alpha_prod_t_prev)
        std_dev_t = eta * variance ** 0.5
        pred_sample_direction = (1 - alpha_prod_t_prev - std_dev_t ** 2) ** 0.5 * pred_epsilon
        prev_sample = alpha_prod_t_prev ** 0.5 * pred_original_sample + pred_sample_direction
        if eta > 0:
            prev_sample = prev_sample + std_dev_t * torch.randn(model_output.shape, generator=generator)
        return prev_sample, pred_original_sample


def compute_snr(scheduler, timesteps):
    alphas_cumprod = scheduler.alphas_cumprod
    alpha = alphas_cumprod[timesteps] ** 0.5
    sigma = (1.0 - alphas_cumprod[timesteps]) ** 0.5
    return (alpha / sigma) ** 2


for schedule in ("linear", "scaled_linear", "squaredcos_cap_v2"):
    s = DDPMScheduler(beta_schedule=schedule)
    print(f"{schedule}: betas {s.betas.dtype} {s.betas[[0, 50, 99]]} alphas_cumprod[-1] "
          f"{s.alphas_cumprod[-1].item():.4e}")
try:
    DDPMScheduler(beta_schedule="sigmoid")
except NotImplementedError as e:
    print("NotImplementedError:", str(e).replace("__main__", "M"))

sched = DDPMScheduler(beta_schedule="squaredcos_cap_v2")
for spacing in ("leading", "trailing"):
    sched.timestep_spacing = spacing
    sched.set_timesteps(8)
    print(spacing, sched.timesteps.tolist(), sched.timesteps.dtype)
try:
    sched.set_timesteps(1000)
except ValueError as e:
    print("ValueError:", e)

g = torch.Generator().manual_seed(0)
x0 = torch.randn(3, 2, 4, 4, generator=g).clamp(-1, 1)
noise = torch.randn(x0.shape, generator=g)
t = torch.tensor([5, 50, 95])
xt = sched.add_noise(x0, noise, t)
print("add_noise", xt[:, 0, 0, 0], "std per t", xt.flatten(1).std(dim=1))
v = sched.get_velocity(x0, noise, t)
print("velocity", v[:, 0, 0, 0])
print("snr", compute_snr(sched, t), "min-snr-5 weights", torch.stack([compute_snr(sched, t),
                                                                      5 * torch.ones_like(t)], 1).min(1)[0]
      / compute_snr(sched, t))

sched = DDPMScheduler(num_train_timesteps=100, beta_schedule="linear")
sched.set_timesteps(10)
for pt in ("epsilon", "sample", "v_prediction"):
    sched.prediction_type = pt
    out = {"epsilon": noise, "sample": x0, "v_prediction": v}[pt]
    prev, pred_x0 = sched.step(out[1:2], 50, xt[1:2], generator=torch.Generator().manual_seed(1))
    print(f"{pt}: prev {prev.flatten()[:3]} x0 err {(pred_x0 - x0[1:2]).abs().max().item():.4f}")
sched.prediction_type = "x"
try:
    sched.step(noise[:1], 50, xt[:1])
except ValueError as e:
    print("ValueError:", e)
sched.prediction_type = "epsilon"

target = torch.tensor([0.5, -0.5]).view(1, 2, 1, 1).expand(1, 2, 4, 4)


def oracle(x, t):
    """The exact epsilon for the data point `target`."""
    a = sched.alphas_cumprod[t]
    return (x - a.sqrt() * target) / (1 - a).sqrt()


gen = torch.Generator().manual_seed(42)
sample = torch.randn(1, 2, 4, 4, generator=gen)
for t in sched.timesteps:
    sample, _ = sched.step(oracle(sample, t), t, sample, generator=gen)
print("ddpm loop final", sample[0, :, 0, 0], "err", round((sample - target).abs().max().item(), 4))

ddim = DDIMScheduler(num_train_timesteps=100, beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012)
ddim.set_timesteps(5)
print("ddim timesteps", ddim.timesteps.tolist())
for eta in (0.0, 1.0):
    gen = torch.Generator().manual_seed(7)
    s = torch.randn(1, 2, 4, 4, generator=gen)
    traj = []
    for t in ddim.timesteps:
        a = ddim.alphas_cumprod[t]
        eps = (s - a.sqrt() * target) / (1 - a).sqrt()
        s, x0_pred = ddim.step(eps, int(t), s, eta=eta, generator=gen)
        traj.append(round(s[0, 0, 0, 0].item(), 4))
    print(f"ddim eta={eta}", traj)
print("generator state size", gen.get_state().shape, gen.initial_seed())
