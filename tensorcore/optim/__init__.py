"""Optimizers (``tensorcore.optim``) and learning-rate schedules
(``tensorcore.optim.lr_scheduler``), with PyTorch's names, defaults and update rules."""

import sys

from . import adadelta, adam, lr_scheduler, nadam, rprop, swa_utils
from .adadelta import Adadelta, Adamax
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam, RAdam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .rprop import ASGD, Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SparseAdam",
    "lr_scheduler",
    "swa_utils",
]

# PyTorch's module paths of the optimizers defined beside a sibling here
# (``from torch.optim.adamw import AdamW``).
for _alias, _module in (("adamw", adam), ("adamax", adadelta), ("radam", nadam), ("asgd", rprop)):
    sys.modules[f"{__name__}.{_alias}"] = _module
