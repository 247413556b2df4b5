/* Tablewatch tablet page: live updates over SSE, PIN-guarded actions, corrections. No libraries. */
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const conn = document.getElementById("conn");
  let lastId = null;
  let source = null;
  let retryTimer = null;
  let lastVersion = null;  // the view's render count: a view can change without an event (learning status)

  function toast(text, bad) {
    const t = document.getElementById("toast");
    t.textContent = text;
    t.className = bad ? "show bad" : "show";
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.className = ""; }, 4000);
  }

  function setConn(state, text) {
    conn.dataset.state = state;
    conn.textContent = text;
  }

  function applyView(data) {
    const view = JSON.parse(data);
    for (const [name, html] of Object.entries(view.parts || {})) {
      document.querySelectorAll('[data-part="' + name + '"]').forEach((el) => {
        if (!el.dataset.pick) { el.innerHTML = html; return; }
        const t = document.createElement("template");  // a page that shows only a piece of a part (the Board page's learning)
        t.innerHTML = html;
        const piece = t.content.querySelector(el.dataset.pick);
        el.innerHTML = piece ? piece.outerHTML : "";
      });
    }
    document.body.dataset.seq = view.seq;
    const img = document.getElementById("board-img");
    if (img) img.src = "/board.jpg?v=" + view.epoch + "-" + view.seq;
    document.dispatchEvent(new CustomEvent("tw:view", { detail: view }));
  }

  // A stream the server refuses (too many open: 429/503) or cannot open: poll the live parts instead
  // (/api/view, the stream's "view" message) every 5 s, and ask for a stream again after 30 s.
  let pollTimer = null;
  async function poll() {
    try {
      const r = await fetch("/api/view", { cache: "no-store" });
      if (!r.ok) throw new Error("HTTP " + r.status);
      const text = await r.text();
      const view = JSON.parse(text);
      const id = view.epoch + "-" + view.seq;
      if (id !== lastId || view.version !== lastVersion) { lastId = id; lastVersion = view.version; applyView(text); }
      setConn("ok", "updating every 5 s");
    } catch (err) {
      setConn("down", "offline — reconnecting…");
    }
  }
  function startPolling() {
    if (pollTimer) return;
    poll();
    pollTimer = setInterval(poll, 5000);
  }
  function stopPolling() {
    clearInterval(pollTimer);
    pollTimer = null;
  }

  function connect() {
    clearTimeout(retryTimer);
    if (source) source.close();
    source = new EventSource(lastId ? "/events?last=" + encodeURIComponent(lastId) : "/events");
    source.onopen = () => { stopPolling(); setConn("ok", "live"); };
    source.addEventListener("view", (e) => { if (e.lastEventId) lastId = e.lastEventId; applyView(e.data); setConn("ok", "live"); });
    source.addEventListener("game", (e) => {
      if (e.lastEventId) lastId = e.lastEventId;
      document.dispatchEvent(new CustomEvent("tw:event", { detail: JSON.parse(e.data) }));
    });
    source.addEventListener("reset", () => { lastId = null; });
    source.onerror = () => {
      setConn("down", "offline — reconnecting…");
      if (source.readyState === EventSource.CLOSED) {   // refused, or the browser gave up: poll, then try again
        startPolling();
        retryTimer = setTimeout(connect, 30000);
      }
    };
  }

  // ---- PIN ------------------------------------------------------------------------------------------------
  const dlg = document.getElementById("pin-dialog");
  let pinWaiters = [];
  function askPin() {
    return new Promise((resolve) => {
      pinWaiters.push(resolve);
      document.getElementById("pin-error").textContent = "";
      document.getElementById("pin-input").value = "";
      if (!dlg.open) dlg.showModal();
      document.getElementById("pin-input").focus();
    });
  }
  function finishPin(ok) {
    const w = pinWaiters; pinWaiters = [];
    w.forEach((f) => f(ok));
  }
  document.getElementById("pin-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const pin = document.getElementById("pin-input").value;
    const r = await fetch("/api/unlock", { method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify({ pin }) });
    const body = await r.json().catch(() => ({}));
    if (r.ok) {
      document.body.dataset.unlocked = "yes";
      document.getElementById("lockbtn").textContent = "Lock";
      dlg.close();
      finishPin(true);
    } else {
      document.getElementById("pin-error").textContent = body.error || "Wrong PIN.";
    }
  });
  document.getElementById("pin-cancel").addEventListener("click", () => { dlg.close(); finishPin(false); });
  document.getElementById("lockbtn").addEventListener("click", async () => {
    if (document.body.dataset.unlocked === "yes") {
      await fetch("/api/lock", { method: "POST", headers: { "X-CSRF-Token": csrf } });
      document.body.dataset.unlocked = "no";
      document.getElementById("lockbtn").textContent = "PIN";
      toast("Locked.");
    } else {
      askPin();
    }
  });

  /** POST JSON (or FormData); asks for the PIN and retries once when needed. Resolves {ok, status, body}. */
  async function post(url, data, retried) {
    const opts = { method: "POST", headers: { "X-CSRF-Token": csrf } };
    if (data instanceof FormData) opts.body = data;
    else { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(data || {}); }
    let r;
    try { r = await fetch(url, opts); } catch (err) { toast("No connection to the server.", true); return { ok: false, status: 0, body: { error: "No connection to the server." } }; }
    const body = await r.json().catch(() => ({}));
    if (r.status === 403 && body.need === "pin" && !retried) {
      if (await askPin()) return post(url, data, true);
      return { ok: false, status: 403, body };
    }
    if (!r.ok && body.error) toast(body.error, true);
    return { ok: r.ok, status: r.status, body };
  }

  // ---- actions --------------------------------------------------------------------------------------------
  document.addEventListener("click", async (e) => {
    const b = e.target.closest("[data-action]");
    if (!b) return;
    const what = b.dataset.action;
    if (what === "undo") {
      const r = await post("/api/undo", {});
      if (r.ok) toast("Last move undone (recorded as a correction).");
    } else if (what === "confirm") {
      const r = await post("/api/confirm", { index: Number(b.dataset.index) });
      if (r.ok) toast("Move confirmed.");
    } else if (what === "adapt") {
      b.disabled = true;
      const r = await post("/api/adapt", {});
      b.disabled = false;
      if (r.ok) toast(r.body.message || "Learning your table.");
    } else if (what === "show-correct") {
      const f = document.getElementById("correct-form");
      f.hidden = !f.hidden;
    }
  });
  const cf = document.getElementById("correct-form");
  if (cf) cf.addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = document.getElementById("correct-moves").value;
    const err = document.getElementById("correct-error");
    err.textContent = "";
    let moves;
    try { moves = JSON.parse(text); } catch (x) { err.textContent = "Not valid JSON: " + x.message; return; }
    const r = await post("/api/correct", { moves });
    if (r.ok) { toast("Correction recorded."); cf.hidden = true; } else err.textContent = r.body.error || "The correction was refused.";
  });

  // solo: enter the Ghost's revealed mask card from a tap (the form lives in the live scoreboard part)
  document.addEventListener("submit", async (e) => {
    const f = e.target.closest("[data-ghost-card-form]");
    if (!f) return;
    e.preventDefault();
    const err = f.querySelector("[data-ghost-card-error]");
    const card = f.elements.card.value;
    if (err) err.textContent = "";
    if (!card) { if (err) err.textContent = "Choose the card first."; return; }
    const r = await post("/api/tablet/ghost_card", { card });
    if (r.ok) toast("Ghost card " + card + " entered.");
    else if (err) err.textContent = r.body.error || "The card was refused.";
  });

  // a board picture the server has not got (no camera picture of that board yet): hide it rather than a broken icon
  document.addEventListener("error", (e) => {
    if (e.target instanceof HTMLImageElement && e.target.hasAttribute("data-hide-missing")) e.target.closest("figure").hidden = true;
  }, true);

  window.tw = { post, toast, askPin, csrf };
  connect();
})();
