"""`ember.optim`: PyTorch's `torch.optim` optimizers over fused per-parameter update kernels."""

from ember.optim.optimizer import Optimizer
from ember.optim.sgd import SGD
from ember.optim.adam import Adam, AdamW
from ember.optim.rmsprop import RMSprop
from ember.optim.adagrad import Adagrad
from ember.optim.adam_variants import Adamax, NAdam, RAdam
from ember.optim.adadelta import Adadelta
from ember.optim.lbfgs import LBFGS
from ember.optim.rprop import Rprop
from ember.optim.asgd import ASGD
from ember.optim._adafactor import Adafactor
from ember.optim.sparse_adam import SparseAdam
from ember.optim._muon import Muon
from ember.optim._stateless import swap_in_optimizer_params_and_state
from ember.optim import lr_scheduler, swa_utils

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam", "Adadelta",
           "LBFGS", "Rprop", "ASGD", "Adafactor", "SparseAdam", "Muon", "lr_scheduler",
           "swa_utils", "swap_in_optimizer_params_and_state"]
