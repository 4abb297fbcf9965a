"""``OptimizedModule``: what ``tc.compile(module)`` returns, as PyTorch's ``torch.compile``
does. tensorcore runs eagerly, so calling the wrapper calls the original module; what
programs see of the wrapper is PyTorch's: the original under ``_orig_mod`` (a child, so
state dict keys and parameter names gain the ``_orig_mod.`` prefix that checkpoint loaders
strip), and every other attribute read, written or deleted on the original."""

from __future__ import annotations

from typing import Any

from .module import Module

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """The module ``tc.compile(mod)`` returns: calls ``mod`` (its hooks included) and passes
    attribute access through to it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> net = tc.nn.Linear(2, 3)
    >>> opt = tc.compile(net)
    >>> type(opt).__name__, opt._orig_mod is net, opt.in_features
    ('OptimizedModule', True, 2)
    >>> list(opt.state_dict())
    ['_orig_mod.weight', '_orig_mod.bias']
    >>> opt.eval().training, net.training
    (False, False)
    """

    # Names that belong to the wrapper itself; any other attribute is the original's.
    _own = frozenset({"_orig_mod", "forward"})

    def __init__(self, mod: Module) -> None:
        # Set first: while Module.__init__ runs, reads of ``training`` go to ``mod``.
        object.__setattr__(self, "_orig_mod", mod)
        object.__setattr__(self, "_wrapping", False)
        super().__init__()
        del self.__dict__["_orig_mod"]
        self._modules["_orig_mod"] = mod
        object.__setattr__(self, "_wrapping", True)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Call the original module (its ``__call__``, so that its hooks run)."""
        return self._orig_mod(*args, **kwargs)

    @property
    def training(self) -> bool:
        """The original module's mode."""
        return bool(self._orig_mod.training)

    @training.setter
    def training(self, value: bool) -> None:
        # Module.__init__ sets the default on the wrapper: the original keeps its own mode.
        if self.__dict__.get("_wrapping"):
            self._orig_mod.training = value

    def __getattr__(self, name: str) -> Any:
        if name == "_orig_mod":
            d = self.__dict__
            return d["_modules"]["_orig_mod"] if "_modules" in d else d["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._own or hasattr(type(self), name):
            super().__setattr__(name, value)
        else:
            setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._own or hasattr(type(self), name):
            super().__delattr__(name)
        else:
            delattr(self._orig_mod, name)

    def __len__(self) -> int:
        return len(self._orig_mod)

    def __reduce__(self) -> tuple[type[OptimizedModule], tuple[Module]]:
        return (type(self), (self._orig_mod,))
