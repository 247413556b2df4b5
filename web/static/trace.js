/* Layout tracer: draw region polygons on the rectified board photo, name them, mark adjacency, save. */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const canvas = $("trace-canvas");
  const ctx = canvas.getContext("2d");
  const img = new Image();
  let token = null, regions = [], adjacency = [], sel = -1, drawing = null, drag = null, bad = new Set();

  $("trace-start").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    if (f.get("from") !== "mine") f.delete("mine");
    $("start-error").textContent = "";
    const r = await tw.post("/api/trace/start", f);
    if (!r.ok) { $("start-error").textContent = r.body.error || "Could not open."; return; }
    token = r.body.token; regions = r.body.regions; adjacency = r.body.adjacency; sel = -1; drawing = null;
    img.onload = () => { canvas.width = img.width; canvas.height = img.height; $("tracer").hidden = false; redraw(); };
    img.src = r.body.image;
    if (r.body.warnings.length) tw.toast(r.body.warnings.join(" "), true);
    listAll();
  });

  function pos(e) {
    const b = canvas.getBoundingClientRect();
    return [(e.clientX - b.left) * canvas.width / b.width, (e.clientY - b.top) * canvas.height / b.height];
  }
  const near = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]) < 8 * canvas.width / canvas.getBoundingClientRect().width;

  function redraw() {
    ctx.drawImage(img, 0, 0);
    regions.forEach((r, i) => {
      ctx.beginPath();
      r.polygon_px.forEach((p, k) => (k ? ctx.lineTo(p[0], p[1]) : ctx.moveTo(p[0], p[1])));
      ctx.closePath();
      ctx.fillStyle = bad.has(r.id) ? "rgba(220,0,0,0.25)" : i === sel ? "rgba(0,120,255,0.25)" : "rgba(0,160,80,0.12)";
      ctx.fill();
      ctx.lineWidth = i === sel ? 3 : 2;
      ctx.strokeStyle = bad.has(r.id) ? "#d00" : i === sel ? "#06f" : "#080";
      ctx.stroke();
      const c = r.polygon_px.reduce((s, p) => [s[0] + p[0] / r.polygon_px.length, s[1] + p[1] / r.polygon_px.length], [0, 0]);
      ctx.fillStyle = "#000"; ctx.font = "bold 16px sans-serif"; ctx.fillText(r.id, c[0] - 10, c[1]);
      if (i === sel) r.polygon_px.forEach((p) => { ctx.fillStyle = "#06f"; ctx.fillRect(p[0] - 4, p[1] - 4, 8, 8); });
    });
    if (drawing) {
      ctx.beginPath();
      drawing.forEach((p, k) => (k ? ctx.lineTo(p[0], p[1]) : ctx.moveTo(p[0], p[1])));
      ctx.strokeStyle = "#f60"; ctx.lineWidth = 2; ctx.stroke();
      drawing.forEach((p) => { ctx.fillStyle = "#f60"; ctx.fillRect(p[0] - 4, p[1] - 4, 8, 8); });
    }
  }

  function closeDrawing() {
    if (!drawing || drawing.length < 3) return;
    let n = regions.length + 1, id;
    do { id = "R" + String(n++).padStart(2, "0"); } while (regions.some((r) => r.id === id));
    regions.push({ id, kind: $("r-kind").value, polygon_px: drawing, attributes: {} });
    drawing = null; select(regions.length - 1);
  }

  canvas.addEventListener("pointerdown", (e) => {
    const p = pos(e);
    if (!drawing && sel >= 0) {
      const k = regions[sel].polygon_px.findIndex((q) => near(p, q));
      if (k >= 0) { drag = k; canvas.setPointerCapture(e.pointerId); return; }
    }
    if (drawing && drawing.length >= 3 && near(p, drawing[0])) { closeDrawing(); return; }
    if (!drawing) {
      const hit = regions.findIndex((r) => inside(p, r.polygon_px));
      if (hit >= 0 && hit !== sel && !e.shiftKey) { select(hit); return; }
      drawing = [];
    }
    drawing.push(p.map((v) => Math.round(v)));
    redraw();
  });
  canvas.addEventListener("pointermove", (e) => {
    if (drag === null) return;
    regions[sel].polygon_px[drag] = pos(e).map((v) => Math.round(v));
    redraw();
  });
  canvas.addEventListener("pointerup", () => { drag = null; });

  function inside(p, poly) {
    let c = false;
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      if ((poly[i][1] > p[1]) !== (poly[j][1] > p[1]) && p[0] < (poly[j][0] - poly[i][0]) * (p[1] - poly[i][1]) / (poly[j][1] - poly[i][1]) + poly[i][0]) c = !c;
    }
    return c;
  }

  function select(i) {
    sel = i;
    const r = regions[i];
    if (r) {
      $("r-id").value = r.id; $("r-kind").value = r.kind; $("r-label").value = r.label || "";
      $("r-parent").value = r.parent || ""; $("r-attrs").value = Object.keys(r.attributes || {}).length ? JSON.stringify(r.attributes) : "";
    }
    listAll(); redraw();
  }

  function edit() {
    const r = regions[sel];
    if (!r) return;
    r.id = $("r-id").value.trim(); r.kind = $("r-kind").value; r.label = $("r-label").value.trim() || undefined;
    r.parent = $("r-parent").value.trim() || undefined;
    const a = $("r-attrs").value.trim();
    try { r.attributes = a ? JSON.parse(a) : {}; $("r-attrs").classList.remove("error"); } catch (x) { $("r-attrs").classList.add("error"); }
    listAll(); redraw();
  }
  ["r-id", "r-kind", "r-label", "r-parent", "r-attrs"].forEach((id) => $(id).addEventListener("change", edit));
  $("close-poly").addEventListener("click", closeDrawing);
  $("delete-region").addEventListener("click", () => { if (sel >= 0) { regions.splice(sel, 1); sel = -1; listAll(); redraw(); } });
  $("adj-add").addEventListener("click", () => {
    const a = $("adj-a").value.trim(), b = $("adj-b").value.trim();
    if (a && b) { adjacency.push([a, b, $("adj-how").value]); listAll(); }
  });
  document.addEventListener("click", (e) => {
    const x = e.target.closest("[data-adj]");
    if (x) { adjacency.splice(Number(x.dataset.adj), 1); listAll(); }
    const y = e.target.closest("[data-region]");
    if (y) select(Number(y.dataset.region));
  });

  function listAll() {
    $("region-list").innerHTML = regions.map((r, i) => "<li class='" + (i === sel ? "sel" : "") + (bad.has(r.id) ? " error" : "") + "' data-region='" + i + "'>" + esc(r.id) + " · " + esc(r.kind) + (r.parent ? " in " + esc(r.parent) : "") + "</li>").join("");
    $("adj-list").innerHTML = adjacency.map((a, i) => "<li>" + esc(a.join(" – ")) + " <button type='button' data-adj='" + i + "'>×</button></li>").join("");
  }

  $("trace-save").addEventListener("click", async () => {
    $("trace-problems").innerHTML = ""; $("trace-ok").textContent = "";
    const r = await tw.post("/api/trace/save", { token, regions, adjacency });
    bad = new Set();
    if (r.ok) { $("trace-ok").textContent = "Saved " + r.body.name + ": " + r.body.regions + " regions, " + r.body.adjacency + " borders. Choose it in Setup."; }
    else {
      const problems = r.body.problems || [r.body.error || "Not saved."];
      problems.forEach((p) => regions.forEach((x) => { if (p.includes("'" + x.id + "'") || p.includes(" " + x.id + " ")) bad.add(x.id); }));
      $("trace-problems").innerHTML = problems.map((p) => "<li>" + esc(p) + "</li>").join("");
    }
    listAll(); redraw();
  });
})();
