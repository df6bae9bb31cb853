/* feltbank dashboard: commands with client-made ids, live refresh over SSE, roll confirmation.
   No framework; every page is rendered by the server and this script only wires it. */
(function () {
  "use strict";
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const words = JSON.parse(document.getElementById("words").textContent || "{}");
  const w = (s) => words[s] || s;
  let chip = Number(sessionStorage.getItem("feltbank.chip")) || null;
  const picks = {};                       // group -> array of picked values (set-aside)
  let confirmPicks = { key: null, rows: {} };  // the roll being confirmed: row -> face
  let refreshing = 0;

  function newId() {
    // crypto.randomUUID needs https; getRandomValues works on the plain-http LAN too.
    const a = new Uint8Array(12);
    crypto.getRandomValues(a);
    return "web-" + Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  function toast(message, kind) {
    const el = document.getElementById("toast");
    if (!el) return;
    el.textContent = message;
    el.className = "toast " + (kind || "info");
    el.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(hideToast, kind === "error" ? 7000 : 3000);
  }

  // An error toast says what went wrong with the last action: the next action that succeeds
  // takes it away (a tap on the toast does too).
  function hideToast() {
    const el = document.getElementById("toast");
    if (el) el.hidden = true;
    clearTimeout(toast.timer);
  }

  function send(cmd) {
    return post("/api/command", Object.assign({ id: newId() }, cmd));
  }

  async function post(url, payload) {
    const body = JSON.stringify(payload);
    for (let attempt = 0; attempt < 3; attempt++) {
      let r;
      try {
        r = await fetch(url, {
          method: "POST", credentials: "same-origin", body,
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        });
      } catch (e) {
        await sleep(400 * (attempt + 1)); // same id: applied at most once
        continue;
      }
      let data = {};
      try { data = await r.json(); } catch (e) { data = { error: r.statusText }; }
      if (!r.ok) { toast(data.error || r.statusText, "error"); return null; }
      hideToast();
      if (data.message) toast(data.message, "info");
      afterCommand();
      return data;
    }
    toast(w("no answer from the table: check the network"), "error");
    return null;
  }

  function afterCommand() {
    if (document.getElementById("panel")) refresh();
    else location.reload();
  }

  function expand(value) {
    if (value === "$chip") {
      if (!chip) throw new Error("choose a chip (an amount) first");
      return chip;
    }
    if (typeof value === "string" && value.startsWith("$pick:")) {
      const got = picks[value.slice(6)] || [];
      if (!got.length) throw new Error("tap the dice to choose them first");
      return got.slice();
    }
    if (Array.isArray(value)) return value.map(expand);
    if (value && typeof value === "object") {
      const out = {};
      for (const k of Object.keys(value)) out[k] = expand(value[k]);
      return out;
    }
    return value;
  }

  function setChip(v) {
    chip = v > 0 ? Math.floor(v) : null;
    if (chip) sessionStorage.setItem("feltbank.chip", String(chip));
    markChips();
  }

  function markChips() {
    document.querySelectorAll(".chip").forEach((b) => {
      b.setAttribute("aria-pressed", String(Number(b.dataset.chip) === chip));
    });
  }

  function markPicks() {
    document.querySelectorAll("[data-pick]").forEach((b) => {
      const group = picks[b.dataset.pick] || [];
      b.setAttribute("aria-pressed", String(!b.disabled && group.includes(b.dataset.value)));
    });
    for (const g of Object.keys(picks)) {
      const live = Array.from(document.querySelectorAll(`[data-pick="${g}"]:not([disabled])`),
        (b) => b.dataset.value);
      picks[g] = picks[g].filter((v) => live.includes(v));
    }
  }

  function markConfirm() {
    const box = document.getElementById("confirm");
    if (!box) return;
    if (box.dataset.key !== confirmPicks.key) confirmPicks = { key: box.dataset.key, rows: {} };
    box.querySelectorAll(".die-row").forEach((row) => {
      const chosen = confirmPicks.rows[row.dataset.row];
      if (chosen === undefined) return;
      row.querySelectorAll(".face").forEach((f) => {
        f.setAttribute("aria-pressed", String(f.dataset.face === chosen));
      });
      row.classList.add("corrected");
    });
  }

  function confirmRoll() {
    const box = document.getElementById("confirm");
    const faces = [];
    for (const row of box.querySelectorAll(".die-row")) {
      const pressed = row.querySelector('.face[aria-pressed="true"]');
      if (!pressed) {
        toast(w("tap the face of the") + " " + row.querySelector(".die-name").firstChild.textContent.trim(), "error");
        return;
      }
      faces.push(box.dataset.ints === "yes" ? Number(pressed.dataset.face) : pressed.dataset.face);
    }
    send({ kind: box.dataset.kind, [box.dataset.arg]: faces }).then((ok) => {
      if (ok) confirmPicks = { key: null, rows: {} };
    });
  }

  function confirmReading() {
    // A sure die is confirmed as read unless the banker tapped another face; an uncertain
    // die needs the banker's tap, even on the face the camera read: the banker looked.
    const box = document.getElementById("confirm");
    const corrections = {};
    const untapped = [];
    box.querySelectorAll(".die-row").forEach((row) => {
      const tapped = confirmPicks.rows[row.dataset.row];
      if (tapped !== undefined && (tapped !== row.dataset.read || row.dataset.unsure === "yes")) {
        corrections[row.dataset.index] = tapped;
      } else if (tapped === undefined && row.dataset.unsure === "yes") {
        untapped.push(row.dataset.number);
      }
    });
    if (untapped.length) {
      toast(w("Tap the face of each uncertain die, even if it is right:") + " #" +
        untapped.join(", #"), "error");
      return;
    }
    post("/api/live/confirm", { pending: box.dataset.pending, corrections }).then((ok) => {
      if (ok) confirmPicks = { key: null, rows: {} };
    });
  }

  function formArgs(form) {
    const args = fixedArgs(form);
    for (const el of form.querySelectorAll("[name]")) {
      const raw = el.value.trim();
      if (raw === "") continue;
      const type = el.dataset.type || "str";
      if (type === "int") args[el.name] = Number(raw);
      else if (type === "bool") args[el.name] = raw === "true";
      else if (type === "list") args[el.name] = raw.split(/[\s,]+/).filter(Boolean)
        .map((x) => (/^-?\d+$/.test(x) ? Number(x) : x));
      else if (type === "dict") args[el.name] = JSON.parse(raw);
      else args[el.name] = raw;
    }
    return args;
  }

  document.addEventListener("click", (ev) => {
    if (ev.target.id === "toast") { hideToast(); return; }
    const el = ev.target.closest("button, [data-reason]");
    if (!el) return;
    if (el.classList.contains("off") && el.dataset.reason) {
      ev.preventDefault();
      toast(el.dataset.reason, "error");
      return;
    }
    try {
      if (el.dataset.cmd) { send(expand(JSON.parse(el.dataset.cmd))); return; }
    } catch (e) { toast(e.message, "error"); return; }
    if (el.classList.contains("chip")) { setChip(Number(el.dataset.chip)); return; }
    if (el.dataset.pick) {
      const g = (picks[el.dataset.pick] = picks[el.dataset.pick] || []);
      const i = g.indexOf(el.dataset.value);
      if (i >= 0) g.splice(i, 1); else g.push(el.dataset.value);
      markPicks();
      return;
    }
    if (el.classList.contains("pick-these")) {
      picks[el.dataset.group] = JSON.parse(el.dataset.values);
      markPicks();
      return;
    }
    if (el.classList.contains("face")) {
      const row = el.closest(".die-row");
      confirmPicks.rows[row.dataset.row] = el.dataset.face;
      markConfirm();
      return;
    }
    if (el.id === "confirm-roll") { confirmRoll(); return; }
    if (el.id === "confirm-reading") { confirmReading(); return; }
    if (el.id === "demo-throw") { post("/api/demo/throw", {}); return; }
    if (el.id === "reject-reading") {
      post("/api/live/reject", { pending: document.getElementById("confirm").dataset.pending });
      return;
    }
    if (el.id === "toast") { hideToast(); return; }
    if (el.classList.contains("print-now")) window.print();
    if (el.classList.contains("calib-action")) {
      // A refused capture is shown on the page itself (its result and what to do).
      post(el.dataset.url, el.dataset.body ? JSON.parse(el.dataset.body) : {}).then((ok) => {
        if (!ok && el.dataset.reloadOnError) location.reload();
      });
    }
  });

  document.addEventListener("change", (ev) => {
    if (ev.target.classList.contains("chip-custom")) setChip(Number(ev.target.value));
  });

  function fixedArgs(form) {
    return form.dataset.fixed ? JSON.parse(form.dataset.fixed) : {};
  }

  function disarm(form) {
    const button = form.querySelector("button[type=submit]");
    if (form.dataset.armed === "yes" && button) {
      button.textContent = button.dataset.words;
      button.classList.remove("armed");
    }
    delete form.dataset.armed;
  }

  document.addEventListener("submit", (ev) => {
    const form = ev.target;
    if (!form.classList.contains("cmd-form")) return;
    ev.preventDefault();
    let args;
    try { args = formArgs(form); } catch (e) { toast(e.message, "error"); return; }
    // A form that does something large when a field is left empty (cash out everything)
    // asks for a second tap, with the button saying what it will do.
    const button = form.querySelector("button[type=submit]");
    if (form.dataset.confirmEmpty && Object.keys(args).length === Object.keys(fixedArgs(form)).length) {
      if (form.dataset.armed !== "yes") {
        form.dataset.armed = "yes";
        button.dataset.words = button.textContent;
        button.textContent = form.dataset.confirmEmpty;
        button.classList.add("armed");
        clearTimeout(form.disarm);
        form.disarm = setTimeout(() => disarm(form), 6000);
        return;
      }
    }
    disarm(form);
    send(Object.assign({ kind: form.dataset.kind }, args)).then((ok) => { if (ok) form.reset(); });
  });

  // -- live ------------------------------------------------------------------------------------

  async function refresh() {
    const panel = document.getElementById("panel");
    if (!panel) return;
    const mine = ++refreshing;
    let r;
    try { r = await fetch(panel.dataset.src, { credentials: "same-origin" }); } catch (e) { return; }
    if (!r.ok) { if (r.status === 401) location.reload(); return; }
    const html = await r.text();
    if (mine !== refreshing) return; // a newer refresh is on its way
    panel.innerHTML = html;
    markChips();
    markPicks();
    markConfirm();
    drawReading();
  }

  // The waiting reading drawn on the camera: a ring, the label and the confidence of each die;
  // and a crop of each die from the newest frame (the dice are settled, the frame is theirs).
  function drawReading() {
    const svg = document.getElementById("camera-boxes");
    const img = document.getElementById("camera-img");
    const data = document.getElementById("pending-json");
    const rows = data ? JSON.parse(data.textContent) : [];
    if (svg) {
      svg.innerHTML = "";
      const w = img && img.naturalWidth, h = img && img.naturalHeight;
      if (w && h && rows.length) {
        svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
        const ns = "http://www.w3.org/2000/svg";
        const r = Math.max(12, w * 0.045);
        for (const row of rows) {
          const [x, y] = row.center;
          const ring = document.createElementNS(ns, "circle");
          ring.setAttribute("cx", x); ring.setAttribute("cy", y); ring.setAttribute("r", r);
          ring.setAttribute("class", row.unsure ? "box unsure" : "box sure");
          const text = document.createElementNS(ns, "text");
          text.setAttribute("x", x - r); text.setAttribute("y", Math.max(r, y - r - 6));
          text.setAttribute("font-size", Math.round(r * 0.55));
          text.textContent = `${row.label || "?"} ${Math.round(row.confidence * 100)}%`;
          svg.append(ring, text);
        }
      }
    }
    const crops = document.querySelectorAll("canvas.crop[data-center]");
    if (!crops.length || !img || !img.dataset.stream) return;
    const still = new Image();
    still.onload = () => crops.forEach((c) => {
      const [x, y] = c.dataset.center.split(",").map(Number);
      const side = still.naturalWidth * 0.1;
      c.getContext("2d").drawImage(still, x - side / 2, y - side / 2, side, side, 0, 0, c.width, c.height);
    });
    still.src = img.getAttribute("src").split("?")[0] === img.dataset.stream
      ? "/camera/snapshot.jpg?t=" + Date.now() : img.getAttribute("src");
  }

  function connect() {
    const panel = document.getElementById("panel");
    if (!panel || !window.EventSource) return;
    const status = document.getElementById("live-status");
    const source = new EventSource(panel.dataset.events);
    source.addEventListener("open", () => {
      status.hidden = false; status.textContent = "● " + w("Live"); status.className = "live-status on";
    });
    source.addEventListener("error", () => {
      status.hidden = false; status.textContent = w("Reconnecting…"); status.className = "live-status off";
    });
    source.addEventListener("state", (ev) => {
      const view = JSON.parse(ev.data);
      const shown = document.querySelector("#panel .panel");
      if (!shown || String(view.seq || 0) !== shown.dataset.seq) refresh();
    });
    source.addEventListener("reading", () => refresh());
  }

  function startCamera() {
    // The stream starts after the page has loaded, so that "load" means the page is ready.
    const img = document.getElementById("camera-img");
    if (img && img.dataset.stream) {
      img.addEventListener("load", drawReading, { once: true });
      img.src = img.dataset.stream;
    }
  }

  function watchLearning() {
    // While the calibrator learns, poll its progress and reload when it is done.
    const box = document.getElementById("learning");
    if (!box || box.dataset.state !== "learning") return;
    const timer = setInterval(async () => {
      try {
        const r = await fetch(box.dataset.status, { credentials: "same-origin" });
        const s = await r.json();
        const bar = box.querySelector("progress");
        if (bar) bar.value = s.progress.fraction || 0;
        if (s.progress.state !== "learning") { clearInterval(timer); location.reload(); }
      } catch (e) { /* the next tick tries again */ }
    }, 1000);
  }

  // The camera's state line (settled, moving, frame age) kept current.
  function watchCamera() {
    const line = document.querySelector("#camera h2 small");
    if (!line || document.getElementById("camera").dataset.present !== "yes") return;
    setInterval(async () => {
      try {
        const r = await fetch("/camera/status", { headers: { Accept: "application/json" } });
        if (r.ok) line.textContent = (await r.json()).message;
      } catch (e) { /* the live status shows the connection */ }
    }, 2000);
  }

  // The felt's corners tapped on the camera's picture, in the picture's own pixels.
  function pickCorners() {
    const img = document.getElementById("corners-img");
    const save = document.getElementById("corners-save");
    if (!img || !save) return;
    const box = img.parentElement;
    const count = document.getElementById("corners-count");
    const pts = [];
    img.addEventListener("click", (ev) => {
      if (pts.length === 4) {
        pts.length = 0;
        box.querySelectorAll(".corner-dot").forEach((d) => d.remove());
      }
      const r = img.getBoundingClientRect();
      const fx = (ev.clientX - r.left) / r.width, fy = (ev.clientY - r.top) / r.height;
      pts.push([Math.round(fx * img.naturalWidth * 10) / 10, Math.round(fy * img.naturalHeight * 10) / 10]);
      const dot = document.createElement("span");
      dot.className = "corner-dot";
      dot.textContent = String(pts.length);
      dot.style.left = fx * 100 + "%";
      dot.style.top = fy * 100 + "%";
      box.appendChild(dot);
      count.textContent = pts.length + " / 4";
      save.disabled = pts.length !== 4;
    });
    save.addEventListener("click", () => post(save.dataset.url, { corners: pts }));
  }

  function start() {
    pickCorners();
    watchLearning();
    watchCamera();
    window.addEventListener("load", () => { drawReading(); startCamera(); }, { once: true });
    markChips();
    markPicks();
    markConfirm();
    connect();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
