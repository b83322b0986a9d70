"""REINFORCE (the PyTorch examples' policy gradient) on a tiny corridor: a Categorical policy,
log-probabilities of sampled actions, normalised discounted returns, one update per episode."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

torch.manual_seed(543)
np.random.seed(543)
eps = np.finfo(np.float32).eps.item()


class Corridor:
    """Start in cell 0 of 6; action 1 moves right, 0 left; reward 1 on reaching cell 5."""

    def reset(self):
        self.pos = 0
        return self.state()

    def state(self):
        s = np.zeros(6, dtype=np.float32)
        s[self.pos] = 1.0
        return s

    def step(self, action):
        self.pos = max(0, self.pos + (1 if action == 1 else -1))
        done = self.pos == 5
        return self.state(), (1.0 if done else -0.05), done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(6, 32)
        self.dropout = nn.Dropout(p=0.1)
        self.affine2 = nn.Linear(32, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.dropout(self.affine1(x)))
        return F.softmax(self.affine2(x), dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=3e-2)
env = Corridor()


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    m = Categorical(policy(state))
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode(gamma=0.99):
    R, returns = 0, []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_loss = [-log_prob * R for log_prob, R in zip(policy.saved_log_probs, returns)]
    optimizer.zero_grad()
    torch.cat(policy_loss).sum().backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]


lengths = []
for episode in range(40):
    state, steps = env.reset(), 0
    for t in range(1, 50):
        state, reward, done = env.step(select_action(state))
        policy.rewards.append(reward)
        steps = t
        if done:
            break
    lengths.append(steps)
    finish_episode()
print("episode lengths:", lengths)
# a random policy needs about 25 steps to reach the goal (5 at best): the policy has learned to walk right
assert np.mean(lengths[-10:]) < 8, lengths
print("OK")
