"""PyTorch's ``torch.hub``: the cache directory, downloads checked against a hash, loading a
state dict from a URL, and models from a local repository's ``hubconf.py``.

Weights load with :func:`tensorcore.load`, which reads safetensors files (a pickled PyTorch
checkpoint is refused with how to convert it: ``docs/serialization.md``). Models load from a
local directory (``source="local"``); fetching a GitHub repository's code is left to the
user (``git clone``), so that no code is downloaded and run behind their back.

Examples
--------
>>> import tensorcore as tc
>>> tc.hub.get_dir().endswith("hub")
True
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .serialization import load as _load

__all__ = [
    "download_url_to_file",
    "get_dir",
    "help",
    "list",
    "load",
    "load_state_dict_from_url",
    "set_dir",
]

_hub_dir: list[str | None] = [None]
# (PyTorch's: a hash prefix in a checkpoint's file name, ``resnet18-f37072fd.pth``)
_HASH = re.compile(r"-([a-f0-9]*)\.")


def get_dir() -> str:
    """The hub's cache directory: the one :func:`set_dir` gave, else ``$TORCH_HOME/hub``
    (``$XDG_CACHE_HOME/torch/hub``, ``~/.cache/torch/hub`` by default), as PyTorch's."""
    if _hub_dir[0] is not None:
        return _hub_dir[0]
    home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "torch",
    )
    return os.path.join(os.path.expanduser(home), "hub")


def set_dir(d: str | os.PathLike[str]) -> None:
    """Use ``d`` as the hub's cache directory."""
    _hub_dir[0] = os.path.expanduser(os.fspath(d))


def _progress(total: int | None, enabled: bool) -> Any:
    if not enabled:
        return contextlib.nullcontext(None)
    try:
        from tqdm import tqdm
    except ImportError:  # (the progress bar is optional, as in PyTorch)
        return contextlib.nullcontext(None)
    return tqdm(total=total, disable=False, unit="B", unit_scale=True, unit_divisor=1024)


def download_url_to_file(
    url: str, dst: str | os.PathLike[str], hash_prefix: str | None = None, progress: bool = True
) -> None:
    """Download ``url`` to ``dst`` (through a temporary file beside it, so that ``dst`` is
    never half-written); with ``hash_prefix``, the file's SHA-256 must start with it, else a
    ``RuntimeError`` and nothing is kept."""
    dst = os.path.expanduser(os.fspath(dst))
    req = urllib.request.Request(url, headers={"User-Agent": "tensorcore.hub"})
    with urllib.request.urlopen(req) as u:
        length = u.headers.get("Content-Length") if hasattr(u, "headers") else None
        total = int(length) if length else None
        folder = os.path.dirname(os.path.abspath(dst))
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".partial")
        digest = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as f, _progress(total, progress) as bar:
                while chunk := u.read(1 << 16):
                    f.write(chunk)
                    digest.update(chunk)
                    if bar is not None:
                        bar.update(len(chunk))
            if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
                raise RuntimeError(
                    f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}")'
                )
            shutil.move(tmp, dst)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)


def load_state_dict_from_url(
    url: str,
    model_dir: str | None = None,
    map_location: Any = None,
    progress: bool = True,
    check_hash: bool = False,
    file_name: str | None = None,
    weights_only: bool = False,
) -> Any:
    """The object saved at ``url`` (a safetensors file: :func:`tensorcore.load`), downloaded
    once into ``model_dir`` (``<hub dir>/checkpoints``) under ``file_name`` (the URL's);
    ``check_hash`` checks the SHA-256 prefix the file name carries (``name-<hash>.ext``)."""
    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        m = _HASH.search(name) if check_hash else None
        download_url_to_file(url, cached, m.group(1) if m else None, progress=progress)
    return _load(cached, map_location=map_location, weights_only=weights_only)


@contextlib.contextmanager
def _on_path(folder: str) -> Iterator[None]:
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(folder)


def _hubconf(repo_or_dir: str, source: str) -> Any:
    if source == "github":
        raise NotImplementedError(
            f"tensorcore.hub: source='github' ({repo_or_dir!r}) would download and run the "
            "repository's code; clone it yourself (git clone https://github.com/<owner>/<repo>) "
            "and load it with source='local'"
        )
    if source != "local":
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    folder = os.path.abspath(os.path.expanduser(repo_or_dir))
    path = Path(folder) / "hubconf.py"
    if not path.is_file():
        raise FileNotFoundError(f"Cannot find hubconf.py in {folder}")
    with _on_path(folder):
        spec = importlib.util.spec_from_file_location("hubconf", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def _entry(module: Any, model: str) -> Any:
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def list(
    github_or_dir: str,
    force_reload: bool = False,
    skip_validation: bool = False,
    trust_repo: Any = None,
    verbose: bool = True,
    source: str = "github",
) -> builtins.list[str]:
    """The entry points a repository's ``hubconf.py`` defines (its public callables)."""
    module = _hubconf(github_or_dir, source)
    return [
        n
        for n in dir(module)
        if callable(getattr(module, n)) and not n.startswith("_")
        and not isinstance(getattr(module, n), type(sys))
    ]  # fmt: skip


def help(
    github_or_dir: str,
    model: str,
    force_reload: bool = False,
    skip_validation: bool = False,
    trust_repo: Any = None,
    source: str = "github",
) -> str | None:
    """The docstring of entry point ``model``."""
    return _entry(_hubconf(github_or_dir, source), model).__doc__


def load(
    repo_or_dir: str,
    model: str,
    *args: Any,
    source: str = "github",
    trust_repo: Any = None,
    force_reload: bool = False,
    verbose: bool = True,
    skip_validation: bool = False,
    **kwargs: Any,
) -> Any:
    """``model(*args, **kwargs)``, an entry point of the ``hubconf.py`` in directory
    ``repo_or_dir`` (``source="local"``)."""
    return _entry(_hubconf(repo_or_dir, source), model)(*args, **kwargs)
