"""Reinforcement-learning tutorials: DQN (namedtuple replay memory, gather(1, action), max(1).values,
SmoothL1Loss, clip_grad_value_, soft target update through state_dict() arithmetic) and REINFORCE/PPO
(torch.distributions.Categorical, log_prob, entropy, returns normalised with std() + eps, clipped ratios)."""

# ruff: noqa: UP004, UP008, UP032  (the tutorials' own idioms, kept as written)

import math
import random
from collections import deque, namedtuple
from itertools import count
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical, Normal

rng = np.random.default_rng(0)
random.seed(0)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def det(m, scale=0.4):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class ToyEnv:
    """CartPole-shaped: 4-d state, 2 actions, a deterministic reward."""

    def __init__(self):
        self.t = 0
        self.s = np.zeros(4)

    def reset(self, seed=None):
        self.t = 0
        self.s = np.array([0.1, -0.2, 0.05, 0.0])
        return self.s.copy(), {}

    def step(self, action):
        self.t += 1
        self.s = np.tanh(self.s + (0.1 if action else -0.1) * np.array([1.0, 0.5, -0.3, 0.2]) + 0.05 * self.t)
        reward = float(1.0 - abs(self.s[0]))
        terminated = bool(abs(self.s[2]) > 0.4)
        truncated = self.t >= 8
        return self.s.copy(), reward, terminated, truncated, {}


Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))


class ReplayMemory(object):
    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super(DQN, self).__init__()
        self.layer1 = nn.Linear(n_observations, 16)
        self.layer2 = nn.Linear(16, 16)
        self.layer3 = nn.Linear(16, n_actions)

    def forward(self, x):
        x = F.relu(self.layer1(x))
        x = F.relu(self.layer2(x))
        return self.layer3(x)


BATCH_SIZE, GAMMA, EPS_START, EPS_END, EPS_DECAY, TAU, LR = 8, 0.99, 0.9, 0.05, 1000, 0.005, 1e-3
device = torch.device("cpu")
env = ToyEnv()
n_actions = 2
state, info = env.reset()
n_observations = len(state)
policy_net = det(DQN(n_observations, n_actions).to(device))
target_net = DQN(n_observations, n_actions).to(device)
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
memory = ReplayMemory(10000)
steps_done = 0


def select_action(state):
    global steps_done
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1.0 * steps_done / EPS_DECAY)
    steps_done += 1
    if steps_done % 3:  # the tutorial draws random.random() > eps_threshold
        with torch.no_grad():
            return policy_net(state).max(1).indices.view(1, 1)
    return torch.tensor([[steps_done % 2]], device=device, dtype=torch.long) if eps_threshold else None


def optimize_model(batch_idx):
    if len(memory) < BATCH_SIZE:
        return None
    transitions = [memory.memory[i] for i in batch_idx]
    batch = Transition(*zip(*transitions))
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), device=device,
                                  dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(BATCH_SIZE, device=device)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss.item()


episode_durations = []
losses = []
for i_episode in range(3):
    state, info = env.reset()
    state = torch.tensor(state, dtype=torch.float32, device=device).unsqueeze(0)
    for t in count():
        action = select_action(state)
        observation, reward, terminated, truncated, _ = env.step(action.item())
        reward = torch.tensor([reward], device=device)
        done = terminated or truncated
        if terminated:
            next_state = None
        else:
            next_state = torch.tensor(observation, dtype=torch.float32, device=device).unsqueeze(0)
        memory.push(state, action, next_state, reward)
        state = next_state
        l = optimize_model([(7 * k + t) % len(memory) for k in range(BATCH_SIZE)])
        if l is not None:
            losses.append(l)
        target_net_state_dict = target_net.state_dict()
        policy_net_state_dict = policy_net.state_dict()
        for key in policy_net_state_dict:
            target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
        target_net.load_state_dict(target_net_state_dict)
        if done:
            episode_durations.append(t + 1)
            break
print("durations", episode_durations, len(memory), steps_done)
print("dqn losses", len(losses), [round(x, 4) for x in losses[:3]], round(sum(losses), 4))
print("target", r(target_net.layer3.weight), r(policy_net.layer3.bias))
durations_t = torch.tensor(episode_durations, dtype=torch.float)
means = durations_t.unfold(0, 2, 1).mean(1).view(-1)
means = torch.cat((torch.zeros(1), means))
print("means", means.tolist())
print("random.sample", len(memory.sample(4)), type(memory.sample(1)[0]).__name__)


# REINFORCE
class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 16)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(16, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


policy = det(Policy())
policy.eval()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()
print("eps", eps)


def select(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = probs.argmax(1)  # the tutorial samples: m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode(gamma=0.99):
    R = 0
    policy_loss = []
    returns = deque()
    for rr in policy.rewards[::-1]:
        R = rr + gamma * R
        returns.appendleft(R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item(), returns


running_reward = 10
for i_episode in range(1, 4):
    state, _ = env.reset()
    ep_reward = 0
    for t in range(1, 10000):
        action = select(state)
        state, reward, done, _, _ = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done or t >= 6:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    pl, ret = finish_episode()
    print("Episode {}\tLast reward: {:.4f}\tAverage reward: {:.4f}\tloss {:.4f}".format(
        i_episode, ep_reward, running_reward, pl), r(ret))

# Categorical / Normal API as PPO uses it
logits = T(4, 3)
dist = Categorical(logits=logits)
actions = torch.tensor([0, 2, 1, 1])
print("cat", r(dist.log_prob(actions)), r(dist.entropy()), r(dist.probs[0]), dist.batch_shape, dist.event_shape)
print("cat_sample", dist.sample().shape, dist.sample((5,)).shape, Categorical(probs=torch.tensor([0.2, 0.8])).logits)
old_log_probs = dist.log_prob(actions).detach()
new_logits = (logits + 0.1 * T(4, 3)).requires_grad_()
new_dist = Categorical(logits=new_logits)
ratio = torch.exp(new_dist.log_prob(actions) - old_log_probs)
adv = T(4)
adv = (adv - adv.mean()) / (adv.std() + 1e-8)
surr1 = ratio * adv
surr2 = torch.clamp(ratio, 1 - 0.2, 1 + 0.2) * adv
loss = -torch.min(surr1, surr2).mean() - 0.01 * new_dist.entropy().mean()
loss.backward()
print("ppo", round(loss.item(), 4), r(ratio), r(new_logits.grad))
print("kl", r(torch.distributions.kl_divergence(dist, new_dist)))
mu, std = T(3, 2), T(3, 2).exp()
nd = Normal(mu, std)
a = mu + 0.5 * std
print("normal", r(nd.log_prob(a).sum(-1)), r(nd.entropy().sum(-1)), nd.rsample().shape)
values = T(5)
rewards = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0])
dones = torch.tensor([0.0, 0.0, 1.0, 0.0, 0.0])
gae, lam, gamma = 0.0, 0.95, 0.99
advs = torch.zeros(5)
next_value = torch.tensor(0.3)
for t in reversed(range(5)):
    nv = next_value if t == 4 else values[t + 1]
    delta = rewards[t] + gamma * nv * (1 - dones[t]) - values[t]
    gae = delta + gamma * lam * (1 - dones[t]) * gae
    advs[t] = gae
print("gae", r(advs), r(advs + values))
print("smoothl1", round(F.smooth_l1_loss(T(6), T(6), beta=0.5).item(), 4),
      round(F.huber_loss(T(6), T(6), delta=2.0).item(), 4))
