"""``tensorcore.hub`` (PyTorch's ``torch.hub``): downloads checked by hash, state dicts from
URLs (file:// URLs here: no network in tests), entry points of a local ``hubconf.py``."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import tensorcore as tc


def test_the_cache_directory_follows_torch_home(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tc.hub, "_hub_dir", [None])
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    assert tc.hub.get_dir() == str(tmp_path / "hub")
    tc.hub.set_dir(tmp_path / "elsewhere")
    assert tc.hub.get_dir() == str(tmp_path / "elsewhere")


def test_a_download_is_checked_against_its_hash(tmp_path: Path) -> None:
    src = tmp_path / "blob.bin"
    src.write_bytes(b"tensorcore" * 1000)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    dst = tmp_path / "out" / "copy.bin"
    tc.hub.download_url_to_file(src.as_uri(), dst, hash_prefix=digest[:8], progress=False)
    assert dst.read_bytes() == src.read_bytes()
    bad = tmp_path / "bad.bin"
    with pytest.raises(RuntimeError, match="invalid hash value"):
        tc.hub.download_url_to_file(src.as_uri(), bad, hash_prefix="ffff0000", progress=False)
    assert not bad.exists() and not list(tmp_path.glob("*.partial"))


def test_a_state_dict_loads_from_a_url_once(tmp_path: Path) -> None:
    net = tc.nn.Linear(3, 2)
    saved = tmp_path / "weights.safetensors"
    tc.save(net.state_dict(), saved)
    digest = hashlib.sha256(saved.read_bytes()).hexdigest()
    named = tmp_path / f"lin-{digest[:8]}.safetensors"
    saved.rename(named)
    cache = tmp_path / "cache"
    sd = tc.hub.load_state_dict_from_url(
        named.as_uri(), model_dir=str(cache), progress=False, check_hash=True
    )
    fresh = tc.nn.Linear(3, 2)
    fresh.load_state_dict(sd)
    assert tc.equal(fresh.weight, net.weight)
    named.unlink()  # (the second call reads the cached copy)
    assert set(tc.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(cache))) == {
        "weight",
        "bias",
    }


def test_models_load_from_a_local_hubconf(tmp_path: Path) -> None:
    (tmp_path / "hubconf.py").write_text(
        "import tensorcore as torch\n"
        "dependencies = ['tensorcore']\n"
        "def tiny(out=2):\n"
        "    '''A tiny linear model.'''\n"
        "    return torch.nn.Linear(4, out)\n"
    )
    assert tc.hub.list(str(tmp_path), source="local") == ["tiny"]
    assert tc.hub.help(str(tmp_path), "tiny", source="local") == "A tiny linear model."
    model = tc.hub.load(str(tmp_path), "tiny", source="local", out=3)
    assert model.weight.shape == (3, 4)
    with pytest.raises(RuntimeError, match="Cannot find callable nope"):
        tc.hub.load(str(tmp_path), "nope", source="local")
    with pytest.raises(NotImplementedError, match="clone it yourself"):
        tc.hub.load("owner/repo", "tiny")
