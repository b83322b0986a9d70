"""PPO as cleanrl-style scripts write it: a vectorised numpy environment, rollout buffers, GAE by a reversed loop
and again by flip/cumsum of a discount matrix, clipped surrogate and value losses, approx-KL and clip fraction,
an entropy bonus, minibatches from a seeded numpy permutation, a diagonal-Gaussian actor (Independent(Normal))
next to a Categorical one, orthogonal init with gains, and advantage normalisation."""

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical, Independent, Normal

rng = np.random.default_rng(7)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class VecPointEnv:
    """N copies of a 1-D point mass: obs (pos, vel, goal), discrete push left/none/right or a continuous force."""

    def __init__(self, n):
        self.n = n
        self.state = np.zeros((n, 3), dtype=np.float32)
        self.t = np.zeros(n, dtype=np.int64)

    def reset(self):
        self.state[:, 0] = np.linspace(-0.5, 0.5, self.n)
        self.state[:, 1] = 0.0
        self.state[:, 2] = np.linspace(0.8, -0.8, self.n)
        self.t[:] = 0
        return self.state.copy()

    def step(self, force):
        self.state[:, 1] = 0.9 * self.state[:, 1] + 0.1 * force
        self.state[:, 0] += self.state[:, 1]
        self.t += 1
        dist = np.abs(self.state[:, 0] - self.state[:, 2])
        rew = (-dist).astype(np.float32)
        done = (dist < 0.05) | (self.t >= 6)
        for i in np.nonzero(done)[0]:
            self.state[i] = [0.0, 0.0, -self.state[i, 2]]
            self.t[i] = 0
        return self.state.copy(), rew, done.astype(np.float32)


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    # deterministic stand-in for nn.init.orthogonal_: QR of a numpy Gaussian, scaled by the gain
    q, rr = np.linalg.qr(rng.standard_normal((max(layer.weight.shape), min(layer.weight.shape))))
    q = q * np.sign(np.diag(rr))
    w = q if layer.weight.shape[0] >= layer.weight.shape[1] else q.T
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(w[: layer.weight.shape[0], : layer.weight.shape[1]] * std))
        nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim, n_act, continuous=False):
        super().__init__()
        self.continuous = continuous
        hid = 16
        self.critic = nn.Sequential(layer_init(nn.Linear(obs_dim, hid)), nn.Tanh(), layer_init(nn.Linear(hid, 1), 1.0))
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, hid)), nn.Tanh(), layer_init(nn.Linear(hid, n_act), std=0.01)
        )
        if continuous:
            self.actor_logstd = nn.Parameter(torch.zeros(1, n_act))

    def get_value(self, x):
        return self.critic(x)

    def dist(self, x):
        if self.continuous:
            mean = self.actor(x)
            std = self.actor_logstd.expand_as(mean).exp()
            return Independent(Normal(mean, std), 1)
        return Categorical(logits=self.actor(x))

    def get_action_and_value(self, x, action=None):
        d = self.dist(x)
        if action is None:
            action = d.mean if self.continuous else d.probs.argmax(-1)
        return action, d.log_prob(action), d.entropy(), self.critic(x)


def gae_loop(rewards, values, dones, next_value, next_done, gamma, lam):
    T = rewards.shape[0]
    adv = torch.zeros_like(rewards)
    lastgaelam = 0
    for t in reversed(range(T)):
        if t == T - 1:
            nextnonterminal = 1.0 - next_done
            nextvalues = next_value
        else:
            nextnonterminal = 1.0 - dones[t + 1]
            nextvalues = values[t + 1]
        delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
        adv[t] = lastgaelam = delta + gamma * lam * nextnonterminal * lastgaelam
    return adv, adv + values


def discount_cumsum(x, discount):
    """Reverse discounted cumsum via flip and a triangular discount matrix (no done masks)."""
    T = x.shape[0]
    idx = torch.arange(T)
    powers = (idx.unsqueeze(0) - idx.unsqueeze(1)).clamp(min=0).to(x.dtype)
    mat = torch.triu(discount**powers)
    return mat @ x


def run(continuous, num_envs=4, num_steps=8, epochs=2, n_mb=4):
    env = VecPointEnv(num_envs)
    n_act = 1 if continuous else 3
    agent = Agent(3, n_act, continuous)
    opt = torch.optim.Adam(agent.parameters(), lr=3e-3, eps=1e-5)
    obs = torch.zeros((num_steps, num_envs, 3))
    acts = torch.zeros((num_steps, num_envs) + ((n_act,) if continuous else ()))
    logprobs = torch.zeros((num_steps, num_envs))
    rewards = torch.zeros((num_steps, num_envs))
    dones = torch.zeros((num_steps, num_envs))
    values = torch.zeros((num_steps, num_envs))
    next_obs = torch.Tensor(env.reset())
    next_done = torch.zeros(num_envs)
    for step in range(num_steps):
        obs[step] = next_obs
        dones[step] = next_done
        with torch.no_grad():
            action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step] = value.flatten()
        acts[step] = action
        logprobs[step] = logprob
        force = action[:, 0].numpy() if continuous else action.numpy().astype(np.float32) - 1.0
        o, rew, d = env.step(force)
        rewards[step] = torch.tensor(rew).view(-1)
        next_obs, next_done = torch.Tensor(o), torch.Tensor(d)
    with torch.no_grad():
        next_value = agent.get_value(next_obs).reshape(1, -1)
        advantages, returns = gae_loop(rewards, values, dones, next_value, next_done, 0.99, 0.95)
    b_obs = obs.reshape((-1, 3))
    b_logprobs = logprobs.reshape(-1)
    b_actions = acts.reshape((-1, n_act)) if continuous else acts.reshape(-1).long()
    b_adv, b_ret, b_val = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)
    batch = num_envs * num_steps
    mb = batch // n_mb
    b_inds = np.arange(batch)
    perm_rng = np.random.default_rng(1)
    clipfracs = []
    for epoch in range(epochs):
        perm_rng.shuffle(b_inds)
        for start in range(0, batch, mb):
            mb_inds = b_inds[start : start + mb]
            _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions[mb_inds])
            logratio = newlogprob - b_logprobs[mb_inds]
            ratio = logratio.exp()
            with torch.no_grad():
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs += [((ratio - 1.0).abs() > 0.2).float().mean().item()]
            mb_adv = b_adv[mb_inds]
            mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(ratio, 0.8, 1.2)).mean()
            newvalue = newvalue.view(-1)
            v_unclipped = (newvalue - b_ret[mb_inds]) ** 2
            v_clipped = b_val[mb_inds] + torch.clamp(newvalue - b_val[mb_inds], -0.2, 0.2)
            v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_ret[mb_inds]) ** 2).mean()
            ent = entropy.mean()
            loss = pg_loss - 0.01 * ent + v_loss * 0.5
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            opt.step()
        print(f"  epoch {epoch} pg {round(pg_loss.item(), 4) + 0.0:.4f} v {v_loss.item():.4f} ent {ent.item():.4f} "
              f"kl {old_approx_kl.item():.4f}/{approx_kl.item():.4f}")
    y_pred, y_true = b_val.numpy(), b_ret.numpy()
    var_y = np.var(y_true)
    explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
    print("  rewards", r(rewards.sum(0), 4), "adv", r(advantages[:, 0], 4))
    print("  clipfrac", round(float(np.mean(clipfracs)), 4), "explained var", round(float(explained_var), 4))
    return agent, rewards


print("discrete PPO")
agent, rew = run(False)
print("continuous PPO")
cagent, crew = run(True)
print("logstd", r(cagent.actor_logstd), cagent.actor_logstd.grad is not None)

# GAE without dones equals a discounted cumsum of deltas; returns via flip/cumsum for gamma=1
rew1 = rew[:, 0]
vals = torch.linspace(-1.0, 0.0, rew1.shape[0])
nv = torch.tensor(0.2)
deltas = rew1 + 0.99 * torch.cat([vals[1:], nv.view(1)]) - vals
adv_loop, _ = gae_loop(rew1.view(-1, 1), vals.view(-1, 1), torch.zeros(8, 1), nv.view(1, 1), torch.zeros(1), 0.99, 0.95)
adv_mat = discount_cumsum(deltas, 0.99 * 0.95)
print("gae == cumsum", torch.allclose(adv_loop.view(-1), adv_mat, atol=1e-5), r(adv_mat, 4))
rtg = torch.flip(torch.cumsum(torch.flip(rew1, [0]), 0), [0])
print("flip cumsum", r(rtg, 4), r(rew1.flip(0).cumsum(0).flip(0), 4), r(rew1.fliplr() if rew1.dim() == 2 else rtg, 1))

# distribution shapes and API details PPO code relies on
d = Independent(Normal(torch.zeros(5, 2), torch.ones(5, 2)), 1)
print("indep", d.batch_shape, d.event_shape, d.log_prob(torch.zeros(5, 2)).shape, r(d.entropy(), 2))
c = Categorical(logits=torch.tensor([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]]))
print("cat", r(c.probs), r(c.entropy()), r(c.log_prob(torch.tensor([2, 0]))))
print("cat mode", c.mode.tolist(), c.param_shape, c.support)
try:
    c.log_prob(torch.tensor([3, 0]))
except ValueError as e:
    print("ValueError", str(e)[:70])
try:
    Normal(torch.zeros(2), -torch.ones(2))
except ValueError as e:
    print("ValueError", str(e)[:70])
