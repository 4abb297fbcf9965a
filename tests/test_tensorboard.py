"""tensorcore.utils.tensorboard: the event files are decoded here with a reader of our own
(TFRecord framing with a bitwise CRC32C, a generic protobuf wire decoder), independent of the
writer's encoder and of TensorBoard, and checked field by field."""

from __future__ import annotations

import os
import re
import socket
import struct
import wave
import zlib
from io import BytesIO
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.utils.tensorboard import FileWriter, SummaryWriter, _record


# ------------------------------------------------------------------ the independent reader
def _crc32c_bitwise(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    crc = _crc32c_bitwise(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _read_records(path: str) -> list[bytes]:
    with open(path, "rb") as f:
        data = f.read()
    out, i = [], 0
    while i < len(data):
        header = data[i : i + 8]
        (length,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[i + 8 : i + 12])[0] == _masked(header)
        payload = data[i + 12 : i + 12 + length]
        assert struct.unpack("<I", data[i + 12 + length : i + 16 + length])[0] == _masked(payload)
        out.append(payload)
        i += 16 + length
    return out


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        b = buf[i]
        n |= (b & 0x7F) << shift
        i += 1
        shift += 7
        if b < 0x80:
            return n, i


def _parse(buf: bytes) -> dict[int, list[Any]]:
    """field number -> values (ints for varints, raw bytes otherwise)"""
    fields: dict[int, list[Any]] = {}
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 1:
            value, i = buf[i : i + 8], i + 8
        elif wire == 5:
            value, i = buf[i : i + 4], i + 4
        else:
            assert wire == 2, wire
            n, i = _varint(buf, i)
            value, i = buf[i : i + n], i + n
        fields.setdefault(number, []).append(value)
    return fields


def _double(b: bytes) -> float:
    return struct.unpack("<d", b)[0]


def _events(logdir: str) -> list[dict[int, list[Any]]]:
    files = sorted(f for f in os.listdir(logdir) if f.startswith("events.out.tfevents."))
    events = []
    for name in files:
        records = [_parse(r) for r in _read_records(os.path.join(logdir, name))]
        assert records[0][3] == [b"brain.Event:2"]  # each file starts with its version
        events += records[1:]
    return events


def _values(logdir: str) -> list[tuple[int, str, dict[int, list[Any]]]]:
    """(step, tag, Summary.Value fields) of every summary value, in order"""
    out = []
    for ev in _events(logdir):
        for summary in ev.get(5, []):
            for value in _parse(summary)[1]:
                v = _parse(value)
                out.append((ev.get(2, [0])[0], v[1][0].decode(), v))
    return out


def _plugin(value: dict[int, list[Any]]) -> tuple[str, bytes]:
    data = _parse(_parse(value[9][0])[1][0])
    return data[1][0].decode(), data.get(2, [b""])[0]


def _tensor(value: dict[int, list[Any]]) -> dict[int, list[Any]]:
    return _parse(value[8][0])


def _shape(tensor: dict[int, list[Any]]) -> list[int]:
    dims = _parse(tensor[2][0]).get(2, []) if 2 in tensor else []
    return [_parse(d).get(1, [0])[0] for d in dims]


def _png_pixels(png: bytes) -> np.ndarray:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    i, chunks = 8, {}
    while i < len(png):
        (n,) = struct.unpack(">I", png[i : i + 4])
        kind, data = png[i + 4 : i + 8], png[i + 8 : i + 8 + n]
        assert struct.unpack(">I", png[i + 8 + n : i + 12 + n])[0] == zlib.crc32(kind + data)
        chunks[kind] = chunks.get(kind, b"") + data
        i += 12 + n
    w, h, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert depth == 8
    c = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(h, 1 + w * c)
    rows = np.zeros((h, w * c), np.uint8)
    for y in range(h):
        kind, line = raw[y, 0], raw[y, 1:]
        assert kind in (0, 2)
        rows[y] = line if kind == 0 or y == 0 else line + rows[y - 1]
    return rows.reshape(h, w, c)


# -------------------------------------------------------------------------------- tests
def test_crc32c_matches_a_bitwise_reference() -> None:
    assert _record.crc32c(b"123456789") == 0xE3069283  # the standard check value
    rng = np.random.default_rng(0)
    # short inputs take the byte loop, long ones the NumPy lanes (with a remainder)
    for n in (300, 2 * 32 * _record._LANES + 77):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert _record.crc32c(data) == _crc32c_bitwise(data), n


def test_event_file_name_and_first_record(tmp_path: Any) -> None:
    with SummaryWriter(str(tmp_path), filename_suffix=".v1") as w:
        assert w.get_logdir() == str(tmp_path)
    (name,) = os.listdir(tmp_path)
    host, pid = re.escape(socket.gethostname()), os.getpid()
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{host}\.{pid}\.\d+\.v1", name)
    (first,) = [_parse(r) for r in _read_records(os.path.join(tmp_path, name))]
    assert (
        first[3] == [b"brain.Event:2"]
        and abs(_double(first[1][0]) - __import__("time").time()) < 60
    )


def test_default_log_dir(tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lr0.1") as w:
        log_dir = w.get_logdir()
    host = re.escape(socket.gethostname())
    assert re.fullmatch(
        rf"runs{re.escape(os.sep)}[A-Z][a-z]{{2}}\d\d_\d\d-\d\d-\d\d_{host}_lr0\.1", log_dir
    )
    assert os.listdir(tmp_path / log_dir)[0].startswith("events.out.tfevents.")


def test_add_scalar_values_steps_and_styles(tmp_path: Any) -> None:
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("loss", tc.tensor(0.25), 3, walltime=1234.5)
        w.add_scalar("loss", np.float64(0.1), 4)
        w.add_scalar("loss", 7, 5)
        w.add_scalar("loss", tc.tensor([[2.5]]), 6)  # one element, any shape
        w.add_scalar("new", 0.1, 0, new_style=True)
        w.add_scalar("new64", 0.1, 0, new_style=True, double_precision=True)
        with pytest.raises(AssertionError, match="one element"):
            w.add_scalar("bad", tc.ones(2), 0)
    events = _events(str(tmp_path))
    assert _double(events[0][1][0]) == 1234.5
    values = _values(str(tmp_path))
    simple = [(s, t, struct.unpack("<f", v[2][0])[0]) for s, t, v in values if 2 in v]
    assert simple == [
        (3, "loss", 0.25),
        (4, "loss", np.float32(0.1)),
        (5, "loss", 7.0),
        (6, "loss", 2.5),
    ]
    (_, _, new), (_, _, new64) = [(s, t, v) for s, t, v in values if t.startswith("new")]
    assert _plugin(new)[0] == "scalars" == _plugin(new64)[0]
    t32, t64 = _tensor(new), _tensor(new64)
    assert t32[1] == [1] and struct.unpack("<f", t32[5][0]) == (np.float32(0.1),)  # DT_FLOAT
    assert t64[1] == [2] and struct.unpack("<d", t64[6][0]) == (0.1,)  # DT_DOUBLE


def test_add_scalars_writes_one_run_per_key(tmp_path: Any) -> None:
    with SummaryWriter(str(tmp_path)) as w:
        w.add_scalars("loss/all", {"train": 0.5, "val": tc.tensor(0.75)}, 2)
        w.add_scalars("loss/all", {"train": 0.25}, 3)
    assert sorted(os.listdir(tmp_path))[1:] == ["loss_all_train", "loss_all_val"]
    train = [
        (s, t, struct.unpack("<f", v[2][0])[0])
        for s, t, v in _values(str(tmp_path / "loss_all_train"))
    ]
    assert train == [(2, "loss/all", 0.5), (3, "loss/all", 0.25)]
    assert [s for s, _, _ in _values(str(tmp_path / "loss_all_val"))] == [2]


def _histo(value: dict[int, list[Any]]) -> dict[str, Any]:
    h = _parse(value[5][0])
    packed = lambda b: list(struct.unpack(f"<{len(b) // 8}d", b))  # noqa: E731
    return {
        "min": _double(h[1][0]),
        "max": _double(h[2][0]),
        "num": _double(h[3][0]),
        "sum": _double(h[4][0]),
        "sum_squares": _double(h[5][0]),
        "limits": packed(h[6][0]),
        "counts": packed(h[7][0]),
    }


def test_add_histogram_buckets(tmp_path: Any) -> None:
    x = np.random.default_rng(1).normal(size=500)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_histogram("tf", tc.tensor(x), 1)
        w.add_histogram("ten", x, 2, bins=10)
        w.add_histogram("merged", x, 3, bins=10, max_bins=4)
        w.add_histogram("auto", x, 4, bins="auto")
        with pytest.raises(ValueError, match="no element"):
            w.add_histogram("empty", np.zeros(0), 0)
        default_bins = w.default_bins
    tf, ten, merged, auto = (_histo(v) for _, _, v in _values(str(tmp_path)))
    for h in (tf, ten, merged, auto):
        assert (h["min"], h["max"], h["num"]) == (x.min(), x.max(), 500)
        assert h["sum"] == pytest.approx(x.sum()) and h["sum_squares"] == pytest.approx(x @ x)
        assert sum(h["counts"]) == 500 and h["counts"][0] == 0  # one empty bucket below
        assert len(h["limits"]) == len(h["counts"])
    counts, edges = np.histogram(x, bins=10)
    assert ten["counts"] == [0] + counts.tolist() and ten["limits"] == edges.tolist()
    assert merged["counts"] == [0, *np.add.reduceat(counts, [0, 2, 4, 6, 8]).tolist()]
    assert merged["limits"] == edges[[0, 2, 4, 6, 8, 10]].tolist()
    # TensorFlow's edges: 1e-12 * 1.1**k, mirrored; the counts are np.histogram's over them
    assert len(default_bins) == 1 + 2 * 774 and default_bins[774] == 0
    tf_counts, _ = np.histogram(x, bins=default_bins)
    nz = np.flatnonzero(tf_counts)
    assert tf["counts"][1:] == tf_counts[nz[0] : nz[-1] + 1].tolist()
    assert tf["limits"] == default_bins[nz[0] : nz[-1] + 2]


def test_add_image_formats_and_scaling(tmp_path: Any) -> None:
    rng = np.random.default_rng(2)
    chw = rng.random((3, 4, 5), dtype=np.float32)
    grey = rng.random((4, 5), dtype=np.float32)
    u8 = rng.integers(0, 256, (4, 5, 4), dtype=np.uint8)
    batch = rng.random((10, 1, 2, 3), dtype=np.float32)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_image("chw", tc.tensor(chw), 0)
        w.add_image("hwc", chw.transpose(1, 2, 0) * 2 - 0.5, 0, dataformats="HWC")  # clipped
        w.add_image("hw", tc.tensor(grey), 0, dataformats="HW")
        w.add_image("wh", grey.T, 0, dataformats="WH")
        w.add_image("rgba", u8, 0, dataformats="HWC")
        w.add_images("batch", tc.tensor(batch), 0)
        with pytest.raises(AssertionError, match="size of input tensor and input format"):
            w.add_image("bad", chw, 0, dataformats="HW")
    got = {
        t: (_parse(v[4][0]), _png_pixels(_parse(v[4][0])[4][0]))
        for _, t, v in _values(str(tmp_path))
    }
    expected = {
        "chw": (chw.transpose(1, 2, 0) * 255).astype(np.uint8),
        "hwc": (np.clip(chw.transpose(1, 2, 0) * 2 - 0.5, 0, 1) * 255).astype(np.uint8),
        "hw": np.repeat((grey * 255).astype(np.uint8)[:, :, None], 3, axis=2),
        "wh": np.repeat((grey * 255).astype(np.uint8)[:, :, None], 3, axis=2),
        "rgba": u8,
    }
    grid = np.zeros((2 * 2, 8 * 3, 3), np.uint8)  # 8 a row, two rows, grey -> RGB
    for i in range(10):
        y, x = divmod(i, 8)
        grid[y * 2 : y * 2 + 2, x * 3 : x * 3 + 3] = (batch[i, 0, :, :, None] * 255).astype(
            np.uint8
        )
    expected["batch"] = grid
    for tag, pixels in expected.items():
        fields, png = got[tag]
        np.testing.assert_array_equal(png, pixels, err_msg=tag)
        assert [fields[1], fields[2], fields[3]] == [[n] for n in pixels.shape]


def test_add_figure(tmp_path: Any) -> None:
    figure_mod = pytest.importorskip("matplotlib.figure")
    fig = figure_mod.Figure(figsize=(2, 1), dpi=20)
    fig.add_subplot().plot([0, 1])
    with SummaryWriter(str(tmp_path)) as w:
        w.add_figure("fig", fig, 1, close=False)
    ((step, tag, value),) = _values(str(tmp_path))
    assert (step, tag) == (1, "fig") and _png_pixels(_parse(value[4][0])[4][0]).shape == (20, 40, 3)


def test_add_text_and_tensor(tmp_path: Any) -> None:
    with SummaryWriter(str(tmp_path)) as w:
        w.add_text("note", "héllo *md*", 4)
        w.add_tensor("ints", tc.tensor([[1, -2, 3]]), 5)
        w.add_tensor("half", tc.tensor([1.5, -2.0], dtype=tc.float16), 5)
        w.add_tensor("flags", tc.tensor([True, False]), 5)
    (s, tag, text), (_, _, ints), (_, _, half), (_, _, flags) = _values(str(tmp_path))
    assert (s, tag, _plugin(text)) == (4, "note/text_summary", ("text", b""))
    t = _tensor(text)
    assert t[1] == [7] and _shape(t) == [1] and t[8] == ["héllo *md*".encode()]  # DT_STRING
    t = _tensor(ints)
    assert _plugin(ints)[0] == "tensor" and t[1] == [9] and _shape(t) == [1, 3]  # DT_INT64
    decoded, i = [], 0
    while i < len(t[10][0]):
        n, i = _varint(t[10][0], i)
        decoded.append(n - (1 << 64) if n >= 1 << 63 else n)
    assert decoded == [1, -2, 3]
    t = _tensor(half)
    assert t[1] == [19]  # DT_HALF: each value's 16 bits
    bits = [_varint(t[13][0], i)[0] for i in (0, len(t[13][0]) // 2)]
    assert np.array(bits, np.uint16).view(np.float16).tolist() == [1.5, -2.0]
    assert _tensor(flags)[1] == [10] and _tensor(flags)[11] == [b"\x01\x00"]


def test_add_hparams_writes_a_run_with_the_plugins_summaries(tmp_path: Any) -> None:
    with SummaryWriter(str(tmp_path)) as w:
        w.add_hparams({"lr": 0.1, "opt": "adam", "skip": None}, {"hp/acc": 0.5}, run_name="r1")
        with pytest.raises(TypeError, match="should be dictionary"):
            w.add_hparams([("lr", 0.1)], {})  # type: ignore[arg-type]
    values = _values(str(tmp_path / "r1"))
    tags = [t for _, t, _ in values]
    assert tags == [
        "_hparams_/experiment",
        "_hparams_/session_start_info",
        "_hparams_/session_end_info",
        "hp/acc",
    ]
    assert all(_plugin(v)[0] == "hparams" for _, _, v in values[:3])
    experiment = _parse(_parse(_plugin(values[0][2])[1])[2][0])
    infos = [_parse(h) for h in experiment[4]]
    assert [(h[1][0], h[4][0]) for h in infos] == [(b"lr", 3), (b"opt", 1)]  # FLOAT64, STRING
    metric = _parse(_parse(experiment[5][0])[1][0])
    assert metric[2] == [b"hp/acc"]
    start = _parse(_parse(_plugin(values[1][2])[1])[3][0])
    entries = {_parse(e)[1][0]: _parse(_parse(e)[2][0]) for e in start[1]}
    assert _double(entries[b"lr"][2][0]) == 0.1 and entries[b"opt"][3] == [b"adam"]


def test_add_audio_is_a_wav(tmp_path: Any) -> None:
    sound = np.sin(np.arange(100) * 0.3)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_audio("a", tc.tensor(sound[None]), 0, sample_rate=8000)
    ((_, _, value),) = _values(str(tmp_path))
    audio = _parse(value[6][0])
    assert struct.unpack("<f", audio[1][0]) == (8000.0,) and audio[3] == [100]
    with wave.open(BytesIO(audio[4][0])) as f:
        pcm = np.frombuffer(f.readframes(100), "<i2")
    np.testing.assert_array_equal(pcm, (sound * 32767).astype("<i2"))


def test_queue_flush_close_and_reopen(tmp_path: Any) -> None:
    w = SummaryWriter(str(tmp_path), max_queue=3, flush_secs=1000)
    w.add_scalar("x", 1.0, 0)
    assert _values(str(tmp_path)) == []  # queued
    w.add_scalar("x", 2.0, 1)
    w.add_scalar("x", 3.0, 2)  # the third fills the queue
    assert len(_values(str(tmp_path))) == 3
    w.add_scalar("x", 4.0, 3)
    w.flush()
    assert len(_values(str(tmp_path))) == 4
    w.close()
    w.close()
    w.add_scalar("x", 5.0, 4)  # after close: a new event file
    w.close()
    assert len(os.listdir(tmp_path)) == 2
    assert [s for s, _, _ in _values(str(tmp_path))] == [0, 1, 2, 3, 4]


def test_file_writer_and_purge_step(tmp_path: Any) -> None:
    fw = FileWriter(tmp_path / "fw")
    fw.close()
    with pytest.raises(OSError, match="closed"):
        fw.add_summary(b"", 0)
    fw.reopen()
    fw.add_summary(b"", 3, walltime=5.0)
    fw.close()
    assert [(e[2], _double(e[1][-1])) for e in _events(str(tmp_path / "fw"))] == [([3], 5.0)]
    with SummaryWriter(str(tmp_path / "p"), purge_step=7):
        pass
    version, start = _events(str(tmp_path / "p"))
    assert version[2] == [7] and version[3] == [b"brain.Event:2"]
    assert start[2] == [7] and _parse(start[7][0])[1] == [1]  # SessionLog START


@pytest.mark.parametrize("method", ["add_mesh", "add_video"])
def test_unsupported_methods_say_so(tmp_path: Any, method: str) -> None:
    with SummaryWriter(str(tmp_path)) as w, pytest.raises(NotImplementedError, match="tensorcore"):
        getattr(w, method)("t", tc.ones(1, 1, 3, 2, 2))


def test_an_unclosed_writer_writes_its_events_when_collected(tmp_path: Any) -> None:
    import gc

    w = SummaryWriter(str(tmp_path), flush_secs=1000)
    w.add_scalar("x", 1.0, 0)
    assert _values(str(tmp_path)) == []
    del w
    gc.collect()
    assert [(s, t) for s, t, _ in _values(str(tmp_path))] == [(0, "x")]


def test_add_embedding_files(tmp_path: Any) -> None:
    mat = np.arange(12, dtype=np.float64).reshape(4, 3) / 4
    images = np.random.default_rng(3).random((4, 3, 2, 2))
    with SummaryWriter(str(tmp_path)) as w:
        w.add_embedding(tc.tensor(mat), metadata=["a", "b", "c", "d"], label_img=images)
        w.add_embedding(mat, [[1, "x"]] * 4, metadata_header=["n", "s"], global_step=2, tag="a/b")
        with pytest.raises(AssertionError, match="#labels"):
            w.add_embedding(mat, metadata=["a"], global_step=9)
    first = tmp_path / "00000" / "default"
    assert (first / "tensors.tsv").read_text().splitlines()[1] == "0.75\t1.0\t1.25"
    assert (first / "metadata.tsv").read_text() == "a\nb\nc\nd\n"
    sprite = _png_pixels((first / "sprite.png").read_bytes())  # 2 x 2 cells of 2 x 2 images
    expected = (images.transpose(0, 2, 3, 1) * 255).astype(np.uint8)
    np.testing.assert_array_equal(sprite[2:4, 0:2], expected[2])
    second = tmp_path / "00002" / "a%2fb"
    assert (second / "metadata.tsv").read_text() == "n\ts\n" + "1\tx\n" * 4
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert config.count("embeddings {") == 2
    assert 'tensor_name: "a/b:00002"' in config and "single_image_dim: 2" in config
    assert 'tensor_path: "00002/a%2fb/tensors.tsv"' in config
