"""The interactive stride page: one HTML file, its script inline, no server and no network.

The page starts from a :class:`~tensorcore.viz.StridePicture`'s views and redraws them in the
browser whenever a size, stride, offset or the storage size is edited. Hovering a logical
element highlights the storage cell it reads (and draws a line to it); hovering a storage
cell highlights every element that reads it. The script computes each element's storage
index with the same formula as :class:`~tensorcore.viz.View` (``tests/test_viz_browser.py``
compares the two in a real browser).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._svg import PALETTE, esc, html_page, script_json

if TYPE_CHECKING:
    from ._strides import StridePicture

__all__ = ["stride_page"]

_STYLE = """\
h1{font-size:1.3em;margin:0 0 .3em}
.help{max-width:60em;color:#444}
form{display:flex;flex-wrap:wrap;gap:.8em;align-items:flex-end;margin:.8em 0}
fieldset{border:1px solid #ccc;border-radius:6px;padding:.3em .7em .5em}
legend{font-weight:bold}
label{margin-right:.6em}
input{font:inherit;width:7em}
input[name=offset],#storage-size{width:4em}
#error{color:#b00020;min-height:1.2em;margin:.3em 0}
#readout{min-height:1.2em;margin:.3em 0;color:#333}
#picture{position:relative;display:inline-block;padding-bottom:1em}
#picture.invalid{opacity:.35}
.views{display:flex;gap:2.5em;align-items:flex-start;margin-bottom:3.5em}
.vname{font-weight:bold}
.vdesc,.vflags,.slabel{font-size:.85em;color:#333}
.grid{display:grid;justify-content:start;margin:.3em 0 .6em}
.cell{width:2.6em;height:1.8em;line-height:1.8em;text-align:center;font-size:.85em;
  border:1px solid #444;margin:0 -1px -1px 0;background:#fff;cursor:default;position:relative}
.el{border-width:1.5px}
.scell.gap{background:#e8e8e8;color:#999;border-color:#aaa}
.scell.repeated{background:#fde2c4}
.marks{position:absolute;left:2px;right:2px;bottom:-7px;height:4px;display:flex;gap:1px}
.marks span{flex:1}
.cell.hl{background:#ffe08a;outline:2px solid #222;z-index:1}
#overlay{position:absolute;left:0;top:0;pointer-events:none;overflow:visible}
"""

_BODY = """\
<h1>{title}</h1>
<p class="help">Each logical element (above) reads one storage cell (below): element
(i, j, &hellip;) reads storage index <i>offset + i&middot;stride[0] + j&middot;stride[1] +
&hellip;</i>, and each element is labelled with that index. Edit the sizes, strides and offsets;
hover an element to see the cell it reads, or a storage cell to see which elements read it.</p>
<form id="controls" autocomplete="off" onsubmit="return false"></form>
<p id="error" role="alert"></p>
<p id="readout">Hover an element or a storage cell.</p>
<div id="picture"><svg id="overlay" width="1" height="1"></svg><div id="drawing"></div></div>
<noscript>{svg}</noscript>
"""

_SCRIPT = r"""
"use strict";
const PALETTE = __PALETTE__;
const MAX_CELLS = __MAX__;
const $ = (id) => document.getElementById(id);

function ints(text, what, name) {
  const parts = text.replace(/[()\[\],]/g, " ").trim().split(/\s+/).filter((p) => p !== "");
  return parts.map((p) => {
    if (!/^-?\d+$/.test(p)) throw new Error(`${name}: ${what} must be whole numbers, got "${p}"`);
    return parseInt(p, 10);
  });
}
const tup = (t) => "(" + t.join(", ") + (t.length === 1 ? "," : "") + ")";
const numel = (v) => v.size.reduce((a, b) => a * b, 1);
const index = (v, idx) => idx.reduce((acc, i, d) => acc + i * v.stride[d], v.offset);
const cells = (v, idx) => Array.from({length: v.scale}, (_, c) => index(v, idx) * v.scale + c);
const describe = (v) => `size ${tup(v.size)}  stride ${tup(v.stride)}  offset ${v.offset}`;
function* indices(size) {
  const idx = size.map(() => 0);
  if (size.some((n) => n === 0)) return;
  while (true) {
    yield idx.slice();
    let d = size.length - 1;
    while (d >= 0 && ++idx[d] === size[d]) idx[d--] = 0;
    if (d < 0) return;
  }
}
function extent(v) {
  if (numel(v) === 0) return v.offset;
  return v.size.reduce((acc, n, d) => acc + (n - 1) * v.stride[d], v.offset) + 1;
}
function contiguous(v) {
  let expected = 1;
  for (let d = v.size.length - 1; d >= 0; d--) {
    if (v.size[d] === 0) return true;
    if (v.size[d] !== 1) {
      if (v.stride[d] !== expected) return false;
      expected *= v.size[d];
    }
  }
  return true;
}

function buildControls() {
  const form = $("controls");
  DATA.views.forEach((v, k) => {
    const fs = document.createElement("fieldset");
    fs.className = "view";
    fs.dataset.view = k;
    const legend = document.createElement("legend");
    legend.textContent = v.dtype ? `${v.name}  ${v.dtype}` : v.name;
    legend.style.color = PALETTE[k % PALETTE.length];
    fs.appendChild(legend);
    for (const [name, value] of [["size", v.size.join(" ")], ["stride", v.stride.join(" ")],
                                 ["offset", String(v.offset)]]) {
      const label = document.createElement("label");
      label.textContent = name + " ";
      const input = document.createElement("input");
      input.name = name;
      input.value = value;
      label.appendChild(input);
      fs.appendChild(label);
    }
    form.appendChild(fs);
  });
  const label = document.createElement("label");
  label.textContent = `storage size (${DATA.cell}s${DATA.unit ? " of " + DATA.unit : ""}) `;
  const input = document.createElement("input");
  input.id = "storage-size";
  input.placeholder = "auto";
  input.value = DATA.storageSize === null ? "" : String(DATA.storageSize);
  label.appendChild(input);
  form.appendChild(label);
  form.addEventListener("input", render);
  form.addEventListener("change", render);  // also a field emptied by a script or autofill
}

function readViews() {
  const views = DATA.views.map((d, k) => {
    const fs = document.querySelector(`fieldset[data-view="${k}"]`);
    const get = (name) => fs.querySelector(`input[name="${name}"]`).value;
    const v = {name: d.name, scale: d.scale, size: ints(get("size"), "sizes", d.name),
               stride: ints(get("stride"), "strides", d.name)};
    const off = ints(get("offset"), "the offset", d.name);
    if (off.length !== 1) throw new Error(`${d.name}: the offset must be one whole number`);
    v.offset = off[0];
    if (v.size.length !== v.stride.length)
      throw new Error(`${v.name}: size ${tup(v.size)} has ${v.size.length} dims but stride ` +
                      `${tup(v.stride)} has ${v.stride.length}`);
    if (v.size.some((n) => n < 0))
      throw new Error(`${v.name}: sizes must be non-negative, got ${tup(v.size)}`);
    if (v.stride.some((s) => s < 0))
      throw new Error(`${v.name}: strides must be non-negative, got ${tup(v.stride)}`);
    if (v.offset < 0)
      throw new Error(`${v.name}: the offset must be non-negative, got ${v.offset}`);
    if (numel(v) > MAX_CELLS)
      throw new Error(`${v.name} has ${numel(v)} elements; the picture draws at most ${MAX_CELLS}`);
    return v;
  });
  const text = $("storage-size").value.trim();
  let n = Math.max(0, ...views.map((v) => extent(v) * v.scale));
  if (text !== "") {
    const given = ints(text, "the storage size", "storage");
    if (given.length !== 1 || given[0] < 0)
      throw new Error("storage: the size must be one non-negative whole number");
    for (const v of views) {
      if (extent(v) * v.scale > given[0]) {
        if (numel(v) === 0)
          throw new Error(`${v.name}: offset ${v.offset} is beyond the storage (${given[0]})`);
        throw new Error(`${v.name}: ${describe(v)} reads storage index ${extent(v) - 1}, ` +
                        `beyond a storage of ${Math.floor(given[0] / v.scale)} elements`);
      }
    }
    n = given[0];
  }
  if (n > MAX_CELLS)
    throw new Error(`a storage of ${n} cells; the picture draws at most ${MAX_CELLS}`);
  return [views, n];
}

function div(cls, text) {
  const d = document.createElement("div");
  d.className = cls;
  if (text !== undefined) d.textContent = text;
  return d;
}

function draw(views, n) {
  const reads = Array.from({length: n}, () => []);
  const perView = views.map(() => new Map());
  views.forEach((v, k) => {
    for (const idx of indices(v.size)) for (const c of cells(v, idx)) {
      reads[c].push([k, idx]);
      perView[k].set(c, (perView[k].get(c) || 0) + 1);
    }
  });
  const root = div("");
  const row = div("views");
  views.forEach((v, k) => {
    const box = div("view");
    box.dataset.view = k;
    const name = div("vname", DATA.views[k].dtype ? `${v.name}  ${DATA.views[k].dtype}` : v.name);
    name.style.color = PALETTE[k % PALETTE.length];
    const seen = [...perView[k].keys()];
    const flags = [contiguous(v) ? "contiguous" : "non-contiguous"];
    if ([...perView[k].values()].some((c) => c > 1)) flags.push("repeated reads");
    if (seen.length && Math.max(...seen) - Math.min(...seen) + 1 > seen.length) flags.push("gaps");
    if (v.scale > 1) flags.push(`${v.scale} cells an element`);
    box.append(name, div("vdesc", describe(v)), div("vflags", flags.join(", ")));
    const nd = v.size.length;
    if (numel(v) === 0) box.appendChild(div("slabel", "(no elements)"));
    const rows = nd >= 2 ? v.size[nd - 2] : 1;
    const cols = nd >= 1 ? v.size[nd - 1] : 1;
    let grid = null;
    let count = 0;
    for (const idx of indices(v.size)) {
      if (count % (rows * cols) === 0) {
        if (nd > 2) {
          const lead = [...idx.slice(0, nd - 2), ":", ":"].join(", ");
          box.appendChild(div("slabel", `${v.name}[${lead}]`));
        }
        grid = div("grid");
        grid.style.gridTemplateColumns = `repeat(${cols}, auto)`;
        box.appendChild(grid);
      }
      count++;
      const cs = cells(v, idx);
      const cell = div("cell el", String(cs[0]));
      cell.dataset.view = k;
      cell.dataset.index = idx.join(" ");
      cell.dataset.storage = cs.join(" ");
      cell.style.borderColor = PALETTE[k % PALETTE.length];
      cell.title = `${v.name}[${idx.join(", ")}] reads storage ` +
                   (cs.length === 1 ? `[${cs[0]}]` : `cells ${cs[0]}–${cs[cs.length - 1]}`);
      grid.appendChild(cell);
    }
    row.appendChild(box);
  });
  root.appendChild(row);
  const what = `${n} ${DATA.cell}${n === 1 ? "" : "s"}`;
  root.appendChild(div("slabel", "storage: " + (DATA.unit ? `${what} of ${DATA.unit}` : what)));
  const storage = div("grid storage");
  storage.style.gridTemplateColumns = `repeat(${Math.max(1, Math.min(n, 32))}, auto)`;
  storage.style.rowGap = "10px";
  reads.forEach((r, c) => {
    const cell = div("cell scell", String(c));
    const by = [...new Set(r.map(([k]) => k))].sort((a, b) => a - b);
    if (r.length === 0) cell.classList.add("gap");
    else if (by.some((k) => perView[k].get(c) > 1)) cell.classList.add("repeated");
    cell.dataset.index = c;
    cell.dataset.reads = r.length;
    cell.dataset.views = by.join(" ");
    cell.title = `storage[${c}]: ` + (r.length ? "read by " + r.slice(0, 6).map(
      ([k, idx]) => `${views[k].name}[${idx.join(", ")}]`).join(", ") +
      (r.length > 6 ? ` and ${r.length - 6} more` : "") : "read by no view (a gap)");
    const marks = div("marks");
    for (const k of by) {
      const m = document.createElement("span");
      m.style.background = PALETTE[k % PALETTE.length];
      marks.appendChild(m);
    }
    cell.appendChild(marks);
    storage.appendChild(cell);
  });
  root.appendChild(storage);
  $("drawing").replaceChildren(root);
  $("picture").classList.remove("invalid");
}

function clearHighlight() {
  for (const c of document.querySelectorAll("#drawing .hl")) c.classList.remove("hl");
  $("overlay").replaceChildren();
}

function line(from, to) {
  const box = $("picture").getBoundingClientRect();
  const a = from.getBoundingClientRect();
  const b = to.getBoundingClientRect();
  const l = document.createElementNS("http://www.w3.org/2000/svg", "line");
  l.setAttribute("x1", a.left + a.width / 2 - box.left);
  l.setAttribute("y1", a.bottom - box.top);
  l.setAttribute("x2", b.left + b.width / 2 - box.left);
  l.setAttribute("y2", b.top - box.top);
  l.setAttribute("stroke", "#222");
  l.setAttribute("stroke-width", "1.5");
  $("overlay").appendChild(l);
}

function label(el) {
  const idx = el.dataset.index.split(" ").filter((s) => s !== "").join(", ");
  return `${DATA.views[+el.dataset.view].name}[${idx}]`;
}

function hover(ev) {
  const cell = ev.target.closest(".el, .scell");
  clearHighlight();
  if (!cell) return;
  cell.classList.add("hl");
  const drawing = $("drawing");
  if (cell.classList.contains("el")) {
    const cs = cell.dataset.storage.split(" ");
    for (const c of cs) {
      const s = drawing.querySelector(`.scell[data-index="${c}"]`);
      s.classList.add("hl");
      line(cell, s);
    }
    $("readout").textContent = `${label(cell)} reads storage ` +
      (cs.length === 1 ? `[${cs[0]}]` : `cells ${cs[0]}–${cs[cs.length - 1]}`);
  } else {
    const c = cell.dataset.index;
    const who = [];
    for (const e of drawing.querySelectorAll(".el")) {
      if (e.dataset.storage.split(" ").includes(c)) {
        e.classList.add("hl");
        line(e, cell);
        who.push(label(e));
      }
    }
    $("readout").textContent = `storage[${c}] is read by ` +
      (who.length ? who.join(", ") : "no view (a gap)");
  }
}

function render() {
  clearHighlight();
  let views, n;
  try {
    [views, n] = readViews();
  } catch (e) {
    $("error").textContent = e.message;
    $("picture").classList.add("invalid");
    return;
  }
  $("error").textContent = "";
  draw(views, n);
  const box = $("drawing").getBoundingClientRect();
  $("overlay").setAttribute("width", Math.ceil(box.width));
  $("overlay").setAttribute("height", Math.ceil(box.height));
}

buildControls();
$("picture").addEventListener("mouseover", hover);
$("picture").addEventListener("mouseleave", () => {
  clearHighlight();
  $("readout").textContent = "Hover an element or a storage cell.";
});
render();
"""


def stride_page(p: StridePicture, title: str | None, max_cells: int) -> str:
    """The interactive page for ``p`` (see :meth:`StridePicture.html`); the page refuses
    to draw more than ``max_cells`` cells, as :func:`~tensorcore.viz.strides` does."""
    if title is None:
        title = "tensorcore strides: " + ", ".join(v.name for v in p.views)
    data = {
        "unit": p.unit,
        "cell": p.cell,
        "storageSize": None if p.auto_storage else p.storage_size,
        "views": [
            {
                "name": v.name,
                "size": list(v.size),
                "stride": list(v.stride),
                "offset": v.offset,
                "scale": v.scale,
                "dtype": v.dtype,
            }
            for v in p.views
        ],
    }
    script = (
        f"const DATA = {script_json(data)};\n"
        + _SCRIPT.replace("__PALETTE__", script_json(list(PALETTE)))
        .replace("__MAX__", str(max_cells))
        .strip()
    )
    body = _BODY.format(title=esc(title), svg=p.svg())
    return html_page(title, body, _STYLE, script)
