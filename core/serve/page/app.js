// The page of `paddle serve`: pick a kit, send an input, draw the record.
// Plain JavaScript, no dependencies; everything it loads comes from the server.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const samples = { image: "assets/samples/image.png", text: "assets/samples/text.txt", smiles: "assets/samples/smiles.txt" };
let kits = [];
let kit = null;

function el(tag, attrs, ...kids) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

function status(msg, isError) {
  $("status").textContent = msg;
  $("status").className = isError ? "error" : "";
}

function choose(k) {
  kit = k;
  for (const b of $("kits").children) b.setAttribute("aria-checked", String(b.dataset.kit === k.name));
  const textual = k.input === "text" || k.input === "smiles";
  $("textform").hidden = !textual;
  $("drop").hidden = textual;
  $("text-label").textContent = k.input === "smiles" ? "SMILES" : "Text";
  $("file").accept = k.input === "audio" ? "audio/*" : "image/*";
  $("drop-help").textContent = `Drop ${k.input === "audio" ? "an audio file" : "an image"} here, or press Enter to pick one`;
  $("sample").hidden = !samples[k.input];
}

async function predict(body, type, name, imageURL) {
  status(`Predicting with ${kit.name}…`);
  const t0 = performance.now();
  let rec;
  try {
    const resp = await fetch(`v1/${kit.name}?name=${encodeURIComponent(name)}`, { method: "POST", headers: { "Content-Type": type || "application/octet-stream" }, body });
    rec = await resp.json();
    if (!resp.ok) throw new Error(`${resp.status}: ${rec.error || resp.statusText}`);
  } catch (e) {
    status(e.message, true);
    $("json").textContent = String(rec ? JSON.stringify(rec, null, 2) : e);
    return;
  }
  $("json").textContent = JSON.stringify(rec, null, 2);
  await render(rec, imageURL, typeof body === "string" ? body : "");
  status(`${kit.name}: answered in ${Math.round(performance.now() - t0)} ms`);
}

function sendFile(f) {
  if (!f) return;
  const url = kit.input === "image" ? URL.createObjectURL(f) : null;
  predict(f, f.type, f.name, url);
}

function sendText() {
  const t = $("text").value.trim();
  if (t) predict(t, "text/plain; charset=utf-8", kit.input === "smiles" ? t : "text", null);
}

async function sendSample() {
  const url = samples[kit.input];
  const resp = await fetch(url);
  if (!resp.ok) { status(`sample ${url}: ${resp.status}`, true); return; }
  if (kit.input === "image") {
    const blob = await resp.blob();
    return predict(blob, "image/png", "sample.png", URL.createObjectURL(blob));
  }
  const t = (await resp.text()).trim();
  $("text").value = t;
  return predict(t, "text/plain; charset=utf-8", kit.input === "smiles" ? t : "sample.txt", null);
}

const fmt = (x) => (typeof x === "number" ? x.toFixed(3) : String(x));

// boxesOf returns the polygons a record holds: OCR lines' points and
// detections' bboxes, each with a caption.
function boxesOf(rec) {
  const out = [];
  for (const r of rec.results || []) if (r.points) out.push({ pts: r.points, caption: r.text || "" });
  for (const d of rec.detections || []) {
    const [x1, y1, x2, y2] = d.bbox;
    out.push({ pts: [[x1, y1], [x2, y1], [x2, y2], [x1, y2]], caption: `${d.label} ${fmt(d.score)}` });
  }
  return out;
}

function table(head, rows) {
  const t = el("table", {}, el("tr", {}, ...head.map((h) => el("th", { text: h }))));
  for (const r of rows) t.append(el("tr", {}, ...r.map((c) => (c instanceof Node ? el("td", {}, c) : el("td", { text: c })))));
  return t;
}

const bar = (score) => el("span", { class: "bar", style: `width:${Math.max(2, Math.round(score * 200))}px` });

async function render(rec, imageURL, text) {
  const view = $("view");
  view.replaceChildren();
  const boxes = boxesOf(rec);
  view.dataset.boxes = String(boxes.length);
  if (imageURL) {
    const img = el("img", { src: imageURL, alt: "the input image" });
    const fig = el("div", { class: "figure" }, img);
    view.append(fig);
    await img.decode().catch(() => {});
    const w = rec.width || img.naturalWidth, h = rec.height || img.naturalHeight;
    if (typeof rec.label_map === "string" && rec.label_map.startsWith("data:")) {
      fig.append(el("img", { class: "mask", src: rec.label_map, alt: "segmentation overlay" }));
    }
    const svg = el("svg:svg", { viewBox: `0 0 ${w} ${h}`, preserveAspectRatio: "none", role: "img", "aria-label": `${boxes.length} boxes` });
    const size = Math.max(10, Math.round(h / 24)); // captions in image pixels
    for (const b of boxes) {
      svg.append(el("svg:polygon", { class: "box", points: b.pts.map((p) => p.join(",")).join(" ") }, el("svg:title", { text: b.caption })));
      const [x, y] = b.pts[0];
      if (b.caption) svg.append(el("svg:text", { x, y: Math.max(size, y - 3), "font-size": size, text: b.caption }));
    }
    fig.append(svg);
  }
  if (rec.results) view.append(table(["#", "text", "score"], rec.results.map((r, i) => [String(i + 1), r.text, fmt(r.score)])));
  if (rec.detections) view.append(table(["label", "score", "box"], rec.detections.map((d) => [d.label, fmt(d.score), d.bbox.join(" ")])));
  if (rec.class_pixels) view.append(table(["class", "pixels"], Object.entries(rec.class_pixels).map(([c, n]) => [c, String(n)])));
  if (rec.topk) view.append(table(["label", "score", ""], rec.topk.map((c) => [c.label || String(c.class_id), fmt(c.score), bar(c.score)])));
  if (rec.audio !== undefined && typeof rec.text === "string") view.append(el("p", { class: "transcript", text: rec.text || "(nothing heard)" }));
  if (rec.label !== undefined && !rec.topk) view.append(el("p", { class: "transcript", text: `${rec.label} ${fmt(rec.score)}` }));
  if (rec.entities) {
    const p = el("p", { class: "transcript" });
    const cps = Array.from(rec.text || text);
    let at = 0;
    for (const e of rec.entities) {
      p.append(cps.slice(at, e.start).join(""), el("mark", { title: e.label, text: `${cps.slice(e.start, e.end).join("")} [${e.label}]` }));
      at = e.end;
    }
    p.append(cps.slice(at).join(""));
    view.append(p);
  }
  if (rec.tokens && rec.tags) view.append(table(["token", "tag"], rec.tokens.map((t, i) => [t, rec.tags[i]])));
  if (rec.predictions) {
    if (rec.canonical) view.append(el("p", { text: `canonical: ${rec.canonical}` }));
    view.append(table(["task", "value"], Object.entries(rec.predictions).map(([k, v]) => [k, v === null ? "null" : fmt(v)])));
  }
}

async function start() {
  let doc;
  try {
    doc = await (await fetch("openapi.json")).json();
  } catch (e) {
    status(`openapi.json: ${e.message}`, true);
    return;
  }
  kits = doc["x-paddle-kits"] || [];
  for (const k of kits) {
    const b = el("button", { type: "button", role: "radio", "data-kit": k.name, text: k.name });
    b.addEventListener("click", () => choose(k));
    $("kits").append(b);
  }
  const q = new URLSearchParams(location.search);
  choose(kits.find((k) => k.name === q.get("kit")) || kits[0]);

  const drop = $("drop");
  drop.addEventListener("click", () => $("file").click());
  drop.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); $("file").click(); } });
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); sendFile(e.dataTransfer.files[0]); });
  $("file").addEventListener("change", (e) => sendFile(e.target.files[0]));
  $("textform").addEventListener("submit", (e) => { e.preventDefault(); sendText(); });
  $("text").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); sendText(); } });
  $("sample").addEventListener("click", sendSample);
  document.body.dataset.ready = "1";
  if (q.get("demo")) {
    await sendSample();
    document.body.dataset.demo = "done";
  }
}

start();
