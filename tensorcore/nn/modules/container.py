"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``."""

from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ..._tensor import Tensor
from ..._tensor_methods import legacy_type_name
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = [
    "Container",
    "ModuleDict",
    "ModuleList",
    "ParameterDict",
    "ParameterList",
    "Sequential",
]


def _index(idx: Any, n: int, kind: str) -> int:
    i = operator.index(idx)
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range")
    return i + n if i < 0 else i


def _delete_and_renumber(container: Module, idx: Any) -> None:
    """Delete the modules at ``idx`` (an index or a slice) and renumber the rest 0..n-1, as
    PyTorch's ``Sequential`` and ``ModuleList`` do."""
    keys = list(container._modules)
    targets = keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys), "")]]
    for key in targets:
        del container._modules[key]
    items = list(container._modules.values())
    container._modules.clear()
    for i, m in enumerate(items):
        container._modules[str(i)] = m


class Sequential(Module):
    """Modules called in order, each on the previous one's output.

    Built from modules (named ``"0"``, ``"1"``, ...) or from one ``OrderedDict`` of names
    to modules.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import nn
    >>> net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    >>> net(tc.ones(3, 4)).shape
    tensorcore.Size([3, 2])
    >>> net[0]
    Linear(in_features=4, out_features=8, bias=True)
    >>> len(net[1:])
    2
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self), "Sequential")]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self), "Sequential")]
        self.add_module(key, module)

    def __delitem__(self, idx: Any) -> None:
        _delete_and_renumber(self, idx)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(m for m in self._modules.values() if m is not None)

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return Sequential(*self, *other)

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Insert ``module`` before ``index``; returns self."""
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Append every module of ``sequential``; returns self."""
        for m in sequential:
            self.append(m)
        return self

    def pop(self, key: int) -> Module:
        """Remove and return the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def forward(self, input: Any) -> Any:
        """Each module on the previous one's output."""
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered (their parameters are the list's).

    Examples
    --------
    >>> from tensorcore import nn
    >>> layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    >>> len(list(layers.parameters()))
    6
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)([m for m in self._modules.values() if m is not None][idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx: Any) -> None:
        _delete_and_renumber(self, idx)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList([*self, *other])

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append every module of ``modules``; returns self."""
        if not isinstance(modules, Iterable) or (
            isinstance(modules, Module) and not isinstance(modules, (ModuleList, Sequential))
        ):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before ``index``."""
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def pop(self, key: int) -> Module:
        """Remove and return the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def __repr__(self) -> str:
        # As PyTorch prints a ModuleList: a run of consecutive children with the same repr
        # (a transformer's repeated blocks) is one line, ``(0-5): 6 x Block(...)``.
        if not self._modules:
            return self._get_name() + "()"
        runs: list[tuple[int, int, str]] = []  # (first index, count, repr)
        for i, child in enumerate(self._modules.values()):
            text = repr(child)
            if runs and runs[-1][2] == text:
                runs[-1] = (runs[-1][0], runs[-1][1] + 1, text)
            else:
                runs.append((i, 1, text))
        lines = []
        for first, count, text in runs:
            head = f"({first})" if count == 1 else f"({first}-{first + count - 1}): {count} x"
            sep = ": " if count == 1 else " "
            lines.append(head + sep + _addindent(text, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules by name, registered.

    Examples
    --------
    >>> from tensorcore import nn
    >>> heads = nn.ModuleDict({"cls": nn.Linear(4, 3), "box": nn.Linear(4, 4)})
    >>> sorted(heads.keys())
    ['box', 'cls']
    """

    def __init__(self, modules: Mapping[str, Module] | Iterable[Any] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        m = self._modules[key]
        assert m is not None
        return m

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove and return the module ``key``."""
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        """The names."""
        return self._modules.keys()

    def items(self) -> Any:
        """``(name, module)`` pairs."""
        return self._modules.items()

    def values(self) -> Any:
        """The modules."""
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable[Any]) -> None:
        """Add modules from a mapping or from ``(name, module)`` pairs."""
        if isinstance(modules, Mapping):
            for k, m in modules.items():
                self[k] = m
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ValueError(
                    f"ModuleDict update sequence element #{j} should be a pair of (name, module)"
                )
            self[pair[0]] = pair[1]


def _parameter_lines(items: Iterable[tuple[Any, Any]], type_name: Callable[[Any], str]) -> str:
    """PyTorch's lines of a ``ParameterList``/``ParameterDict`` (indented by two, so that one
    line prints as ``ParameterList(  (0): ...)``, as PyTorch's does)."""
    lines = []
    for k, p in items:
        if isinstance(p, Tensor):
            size = "x".join(str(s) for s in p.shape)
            dev = "" if p.device.type == "cpu" else f" ({p.device})"
            kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
            lines.append(f"  ({k}): {kind} containing: [{type_name(p)} of size {size}{dev}]")
        else:
            lines.append(f"  ({k}): Object of type: {type(p).__name__}")
    return "\n".join(lines)


class ParameterList(Module):
    """A list of parameters, registered (tensors given are made parameters).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import nn
    >>> ps = nn.ParameterList([tc.zeros(2), tc.ones(3)])
    >>> [p.shape[0] for p in ps.parameters()]
    [2, 3]
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx: int, value: Any) -> None:
        i = _index(idx, len(self), "ParameterList")
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, str(i), value)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def append(self, value: Any) -> ParameterList:
        """Add ``value`` (a tensor becomes a parameter); returns self."""
        n = self._size
        self._size += 1
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, str(n), value)
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Append each of ``values``; returns self."""
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return _parameter_lines(enumerate(self), lambda p: str(p.dtype))


class ParameterDict(Module):
    """A dict of parameters by name, registered (tensors given are made parameters).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import nn
    >>> pd = nn.ParameterDict({"scale": tc.ones(2)})
    >>> [n for n, _ in pd.named_parameters()]
    ['scale']
    """

    def __init__(self, parameters: Mapping[str, Any] | Iterable[Any] | None = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def extra_repr(self) -> str:
        return _parameter_lines(self.items(), legacy_type_name)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        """The names."""
        return self._keys.keys()

    def items(self) -> Any:
        """``(name, parameter)`` pairs."""
        return [(k, self[k]) for k in self._keys]

    def values(self) -> Any:
        """The parameters."""
        return [self[k] for k in self._keys]

    def pop(self, key: str) -> Any:
        """Remove and return the parameter ``key``."""
        v = self[key]
        del self[key]
        return v

    def update(self, parameters: Mapping[str, Any] | Iterable[Any]) -> None:
        """Add parameters from a mapping or from ``(name, tensor)`` pairs."""
        pairs: Iterable[Any] = parameters.items() if isinstance(parameters, Mapping) else parameters
        for k, v in pairs:
            self[k] = v


class Container(Module):
    """Deprecated (PyTorch's too): a :class:`Module` holding the keyword arguments as its
    children. Subclass :class:`Module` instead."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        warnings.warn(
            "nn.Container is deprecated. All of it's functionality is now implemented in "
            "nn.Module. Subclass that instead.",
            stacklevel=2,
        )
        for key, value in kwargs.items():
            self.add_module(key, value)
