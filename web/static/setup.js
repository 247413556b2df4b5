/* Setup wizard: game form, camera check (upload or live), colour calibration, layout choice, the hub. */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

  function showRows() {
    const n = Number($("player-count").value);
    document.querySelectorAll(".player-row").forEach((row) => {
      const on = Number(row.dataset.player) < n;
      row.hidden = !on;
      row.querySelector("input").required = on;
    });
  }
  $("player-count").addEventListener("change", showRows);
  showRows();

  // the game chosen: its own form part (setup.html includes the chosen game's), and the game the other steps set up
  const gameSelect = document.querySelector("#game-form select[name=game]");
  const chosenGame = () => (gameSelect ? gameSelect.value : "");
  if (gameSelect) gameSelect.addEventListener("change", () => { location.href = "/setup?game=" + encodeURIComponent(chosenGame()); });

  $("game-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const n = Number(f.get("count"));
    const players = [];
    for (let i = 0; i < n; i++) players.push({ name: f.get("name" + i), colour: f.get("colour" + i), tribe: f.get("tribe" + i) || null });
    $("game-error").textContent = ""; $("game-ok").textContent = "";
    const body = { game: f.get("game"), players, pairs: f.get("pairs"), seed: f.get("seed") };
    // the game's own choices: [data-option] fields as they are, [data-flag] check boxes as true / false
    e.target.querySelectorAll("[data-option]").forEach((el) => { body[el.name] = el.value; });
    e.target.querySelectorAll("[data-flag]").forEach((el) => { body[el.name] = el.checked; });
    const r = await tw.post("/api/setup/game", body);
    if (r.ok) $("game-ok").textContent = "Game started: " + r.body.players.join(", ") + ".";
    else $("game-error").textContent = r.body.error || "Not started.";
  });

  function cameraReport(body) {
    if (body.error) return '<p class="error">' + esc(body.error) + "</p>";
    let html = "<table class='results'><tr><th>board</th><th>found</th><th>markers</th><th>coverage</th><th>sharpness</th><th>px/mm</th><th>tilt</th><th>advice</th></tr>";
    for (const b of body.boards) {
      html += "<tr><td>" + esc(b.board) + "</td><td class='" + (b.found ? "ok" : "error") + "'>" + (b.found ? "yes" : "no") + "</td><td>" +
        b.markers_seen + "/" + b.markers_total + "</td><td>" + Math.round((b.coverage || 0) * 100) + "%</td><td>" + (b.sharpness ?? "–") +
        "</td><td>" + (b.px_per_mm ?? "–") + "</td><td>" + (b.tilt_deg != null ? b.tilt_deg + "°" : (body.camera_file ? "–" : "needs camera.json")) + "</td><td>" +
        (b.ok ? "<span class='ok'>good</span>" : b.warnings.map((w) => "<div class='warn'>" + esc(w) + "</div>").join("") || (b.found ? "" : "<div class='warn'>not seen: check it is in view and its markers are uncovered</div>")) + "</td></tr>";
    }
    html += "</table><p class='" + (body.ok ? "ok" : "warn") + "'>" + (body.ok ? "The camera is ready." : "Adjust the camera and check again.") + "</p>";
    return html;
  }
  function withBoards(form) {
    new FormData($("camera-form")).getAll("layout").forEach((n) => { if (!form.getAll("layout").includes(n)) form.append("layout", n); });
    return form;
  }
  async function checkCamera(form) {
    form = withBoards(form);
    const r = await tw.post("/api/setup/camera-check", form);
    $("camera-report").innerHTML = cameraReport(r.body);
  }
  $("camera-form").addEventListener("submit", (e) => { e.preventDefault(); checkCamera(new FormData(e.target)); });
  if ($("camera-now")) {
    $("camera-now").addEventListener("click", () => checkCamera(new FormData()));
    let timer = null;
    $("camera-live").addEventListener("change", (e) => {
      clearInterval(timer);
      if (e.target.checked) timer = setInterval(() => checkCamera(new FormData()), 2000);
    });
  }

  $("colour-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    if (chosenGame()) form.append("game", chosenGame());
    const r = await tw.post("/api/setup/colours", form);
    const box = $("colour-report");
    if (!r.ok) { box.innerHTML = '<p class="error">' + esc(r.body.error || "failed") + "</p>"; return; }
    box.innerHTML = "<p class='ok'>Colour profile saved.</p><ul>" + Object.entries(r.body.colours).map(([n, c]) => "<li>" + esc(n) + " on " + esc(c.spot) + ": Lab " + c.lab.join(", ") + "</li>").join("") + "</ul>" +
      r.body.warnings.map((w) => "<p class='warn'>" + esc(w) + "</p>").join("");
  });

  $("layout-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const boards = {};
    e.target.querySelectorAll("select").forEach((s) => { boards[s.name] = s.value; });
    $("layout-problems").innerHTML = ""; $("layout-ok").textContent = "";
    const r = await tw.post("/api/setup/layouts", chosenGame() ? { boards, game: chosenGame() } : { boards });
    if (r.ok) $("layout-ok").textContent = "Saved.";
    else $("layout-problems").innerHTML = (r.body.problems || [r.body.error]).map((p) => "<li>" + esc(p) + "</li>").join("");
  });

  $("hub-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {};
    e.target.querySelectorAll("input").forEach((i) => { body[i.name] = i.value; });
    $("hub-problems").innerHTML = ""; $("hub-ok").textContent = "";
    const r = await tw.post("/api/setup/hub", body);
    if (r.ok) $("hub-ok").textContent = r.body.hub ? "Saved: tablewatch live publishes to " + r.body.hub.url + " under " + r.body.topic + " (within seconds)." : "Saved: not publishing.";
    else $("hub-problems").innerHTML = "<li>" + esc(r.body.error) + "</li>";
  });
})();
