"""A3C as the classic pytorch-a3c repositories write it: a shared global model (share_memory), a SharedAdam whose
state tensors live in shared memory, workers that copy the global weights (load_state_dict), compute grads on a
local LSTMCell actor-critic and hand them over with `shared_param._grad = param.grad`; the RMSprop(centered)
of baselines' A2C, and the old int-step SharedAdam that current PyTorch refuses. Workers run in turn here."""

# ruff: noqa: UP008  (the repositories' own idioms, kept as written)

import numpy as np
import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(13)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class ChainEnv:
    """A 6-state chain: action 1 moves right (reward 1 at the end), action 0 resets to the start; numpy only."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.s = 0

    def obs(self):
        o = np.zeros(6, dtype=np.float32)
        o[self.s] = 1.0
        return o

    def reset(self):
        self.s = int(self.rng.integers(0, 2))
        return self.obs()

    def step(self, a):
        if a == 1:
            self.s += 1
        else:
            self.s = 0
        done = self.s == 5
        return self.obs(), (1.0 if done else -0.01), done


class ActorCritic(nn.Module):
    def __init__(self, n_in, n_act, hid=16):
        super(ActorCritic, self).__init__()
        self.fc = nn.Linear(n_in, hid)
        self.lstm = nn.LSTMCell(hid, hid)
        self.critic_linear = nn.Linear(hid, 1)
        self.actor_linear = nn.Linear(hid, n_act)
        self.lstm.bias_ih.data.fill_(0)
        self.lstm.bias_hh.data.fill_(0)

    def forward(self, inputs):
        x, (hx, cx) = inputs
        x = F.elu(self.fc(x))
        hx, cx = self.lstm(x, (hx, cx))
        return self.critic_linear(hx), self.actor_linear(hx), (hx, cx)


def normalized_columns_initializer(weights, std=1.0):
    out = torch.from_numpy(rng.standard_normal(tuple(weights.size())).astype(np.float32))
    out *= std / torch.sqrt(out.pow(2).sum(1, keepdim=True))
    return out


class SharedAdam(torch.optim.Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0):
        super(SharedAdam, self).__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = torch.zeros(1)
                state["exp_avg"] = p.data.new().resize_as_(p.data).zero_()
                state["exp_avg_sq"] = p.data.new().resize_as_(p.data).zero_()

    def share_memory(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"].share_memory_()
                state["exp_avg"].share_memory_()
                state["exp_avg_sq"].share_memory_()


def ensure_shared_grads(model, shared_model):
    for param, shared_param in zip(model.parameters(), shared_model.parameters()):
        if shared_param.grad is not None:
            return
        shared_param._grad = param.grad


shared_model = ActorCritic(6, 2)
with torch.no_grad():
    for name, p in shared_model.named_parameters():
        if p.dim() == 2:
            p.copy_(normalized_columns_initializer(p, 0.5))
        else:
            p.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, p.shape[0]).astype(np.float32)))
shared_model.share_memory()
print("shared", shared_model.fc.weight.is_shared(), torch.zeros(1).is_shared(), mp.get_start_method(allow_none=True)
      in (None, "fork", "spawn", "forkserver"))
optimizer = SharedAdam(shared_model.parameters(), lr=1e-2)
optimizer.share_memory()
st = optimizer.state[shared_model.fc.weight]
print("optimizer state", sorted(st.keys()), st["step"], st["exp_avg"].is_shared(), st["exp_avg"].shape)


def train(rank, n_updates=3, num_steps=5, gamma=0.99, tau=1.0, entropy_coef=0.01, value_loss_coef=0.5):
    env = ChainEnv(100 + rank)
    model = ActorCritic(6, 2)
    model.train()
    state = torch.from_numpy(env.reset())
    done = True
    logs = []
    for update in range(n_updates):
        model.load_state_dict(shared_model.state_dict())
        if done:
            cx, hx = torch.zeros(1, 16), torch.zeros(1, 16)
        else:
            cx, hx = cx.detach(), hx.detach()
        values, log_probs, rewards, entropies = [], [], [], []
        for step in range(num_steps):
            value, logit, (hx, cx) = model((state.unsqueeze(0), (hx, cx)))
            prob = F.softmax(logit, dim=-1)
            log_prob = F.log_softmax(logit, dim=-1)
            entropy = -(log_prob * prob).sum(1, keepdim=True)
            entropies.append(entropy)
            action = torch.tensor([[int(env.rng.random() < prob[0, 1].item())]])
            log_prob = log_prob.gather(1, action)
            obs, reward, done = env.step(action.item())
            reward = max(min(reward, 1), -1)
            if done:
                obs = env.reset()
            state = torch.from_numpy(obs)
            values.append(value)
            log_probs.append(log_prob)
            rewards.append(reward)
            if done:
                break
        R = torch.zeros(1, 1)
        if not done:
            value, _, _ = model((state.unsqueeze(0), (hx, cx)))
            R = value.detach()
        values.append(R)
        policy_loss, value_loss = 0, 0
        gae = torch.zeros(1, 1)
        for i in reversed(range(len(rewards))):
            R = gamma * R + rewards[i]
            advantage = R - values[i]
            value_loss = value_loss + 0.5 * advantage.pow(2)
            delta_t = rewards[i] + gamma * values[i + 1] - values[i]
            gae = gae * gamma * tau + delta_t
            policy_loss = policy_loss - log_probs[i] * gae.detach() - entropy_coef * entropies[i]
        optimizer.zero_grad()
        (policy_loss + value_loss_coef * value_loss).backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 50)
        ensure_shared_grads(model, shared_model)
        optimizer.step()
        logs.append((len(rewards), round(policy_loss.item(), 4), round(value_loss.item(), 4), round(gn.item(), 4)))
    return logs


for rank in range(3):
    print("worker", rank, train(rank))
    print("  grad is local", shared_model.fc.weight.grad is not None, "step", optimizer.state[shared_model.fc.weight]
          ["step"].item())
print("shared weights", r(shared_model.actor_linear.weight), r(shared_model.lstm.bias_hh, 4))
print("optimizer.zero_grad set_to_none", [p.grad is None for p in shared_model.parameters()][:2])
optimizer.zero_grad()
print("after zero_grad", [p.grad is None for p in shared_model.parameters()][:2])

# A2C's optimizer: RMSprop(alpha=0.99, eps=1e-5, centered) with a linear LR decay
a2c = ActorCritic(6, 2)
a2c.load_state_dict(shared_model.state_dict())
opt = torch.optim.RMSprop(a2c.parameters(), lr=7e-4, alpha=0.99, eps=1e-5, centered=True)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda u: 1.0 - u / 4)
x = torch.eye(6)[:4]
for u in range(3):
    v, logit, _ = a2c((x, (torch.zeros(4, 16), torch.zeros(4, 16))))
    loss = v.pow(2).mean() - F.log_softmax(logit, -1)[:, 1].mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print("a2c", u, round(loss.item(), 4), sched.get_last_lr(), sorted(opt.state[a2c.fc.weight].keys()))
print("rms state", r(opt.state[a2c.fc.bias]["square_avg"], 4), r(opt.state[a2c.fc.bias]["grad_avg"], 4))


# the SharedAdam of 2017 stored a Python int step: today's Adam refuses it
class OldSharedAdam(torch.optim.Adam):
    def __init__(self, params, lr=1e-3):
        super(OldSharedAdam, self).__init__(params, lr=lr)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = 0
                state["exp_avg"] = torch.zeros_like(p.data)
                state["exp_avg_sq"] = torch.zeros_like(p.data)


old = OldSharedAdam(a2c.parameters())
a2c((x, (torch.zeros(4, 16), torch.zeros(4, 16))))[0].sum().backward()
try:
    old.step()
except RuntimeError as e:
    print("RuntimeError", e)
try:
    shared_model.fc.weight.grad = torch.zeros(3)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    a2c.load_state_dict(ActorCritic(6, 3).state_dict())
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[1].strip()[:90])
