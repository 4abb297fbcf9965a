"""Optimizers (``tensorcore.optim``) and learning-rate schedules
(``tensorcore.optim.lr_scheduler``), with PyTorch's names, defaults and update rules."""

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SparseAdam", "lr_scheduler"]
