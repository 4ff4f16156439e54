// The screening card (workbench/widgets/_screencard.py): draws the synced state, sends actions.
// Python holds the state; nothing here decides anything. Paper text arrives escaped: fields
// ending in _html are set as HTML, everything else as text.

const KEYS = { include: "i", exclude: "e", maybe: "m" };
const CODE_COLOURS = ["#c4c4c4", "#009E73", "#D55E00", "#E69F00"]; // undecided, include, exclude, maybe
const SVG = "http://www.w3.org/2000/svg";

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k === "html") node.innerHTML = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

function s(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function render({ model, el }) {
  const root = () => el.closest(".wb-view");
  const refocus = () => { const r = root(); if (r && r.tabIndex >= 0) r.focus({ preventScroll: true }); };

  function send(action, value) {
    message.replaceChildren(h("span", { class: "wb-busy-note" }, h("span", { class: "wb-spinner" }),
      "working… ", h("span", { class: "wb-elapsed" })));
    model.send({ event: "action", action, value: value === undefined ? null : value });
  }

  // ---------------------------------------------------------------- the parts, built once
  const head = h("div", { class: "wb-meta wbc-head" });
  const title = h("h3", { class: "wbc-title" });
  const byline = h("div", { class: "wb-meta wbc-byline" });
  const relevance = h("div", { class: "wb-meta wbc-relevance" });
  const status = h("div", { class: "wb-meta wbc-status" });
  const team = h("div", { class: "wbc-team" });

  const prev = h("button", { class: "wbc-btn", title: "previous paper (k)", onclick: () => { send("move", "k"); refocus(); } }, "◀ previous (k)");
  const next = h("button", { class: "wbc-btn", title: "next paper (j)", onclick: () => { send("move", "j"); refocus(); } }, "next (j) ▶");
  const undo = h("button", { class: "wbc-btn wbc-undo", title: "take back your last change and show its paper", onclick: () => { send("undo"); refocus(); } }, "↶ Undo (u)");
  const bar = h("progress", { class: "wbc-progress", max: "1", value: "0" });
  const barLabel = h("span", { class: "wb-meta wbc-progress-label" });
  const nav = h("div", { class: "wbc-row wbc-nav" }, prev, next, undo, bar, barLabel);

  const decisionRow = h("div", { class: "wbc-row wbc-decisions" });
  const message = h("span", { class: "wb-result wbc-message", "aria-live": "polite" });

  const reasonLabel = h("span", { class: "wb-meta wbc-reason-label" });
  const chips = h("span", { class: "wbc-chips" });
  const reasonBox = h("input", { type: "text", class: "wbc-box wbc-reason-box", placeholder: "reason for the paper just decided (Enter saves it)" });
  const reasonBtn = h("button", { class: "wbc-btn", onclick: () => submitReason() }, "Add reason");
  const reasonRow = h("div", { class: "wbc-row wbc-reasons" }, reasonLabel, chips, reasonBox, reasonBtn);

  const abstract = h("div", { class: "wb-abstract wbc-abstract" });
  const tagButtons = h("span", { class: "wbc-tags" });
  const tagBox = h("input", { type: "text", class: "wbc-box wbc-tag-box", placeholder: "new tag(s), comma separated" });
  const tagBtn = h("button", { class: "wbc-btn", onclick: () => submitTag() }, "Add tag");
  const tagRow = h("div", { class: "wbc-row wbc-tagrow" }, tagButtons, tagBox, tagBtn);
  const noteBox = h("textarea", { class: "wbc-box wbc-note-box", rows: "2", placeholder: "note on this paper (Ctrl+Enter saves it)" });
  const noteBtn = h("button", { class: "wbc-btn", onclick: () => submitNote() }, "Add note");
  const notes = h("div", { class: "wb-meta wbc-notes" });
  const noteRow = h("div", { class: "wbc-row wbc-noterow" }, noteBox, noteBtn);

  const card = h("div", { class: "wb-card wbc-card" }, head, title, byline, relevance, status, team);
  // "paper" (01): the paper and the moves through the selection only (the actions are the view's);
  // read once, when the card is drawn
  const paper = model.get("mode") === "paper";
  el.classList.toggle("wbc-paper", paper);
  if (paper) { undo.remove(); bar.remove(); }
  const main = paper ? h("div", { class: "wbc-main" }, nav, card, abstract, notes)
    : h("div", { class: "wbc-main" }, nav, card, decisionRow, h("div", { class: "wbc-row wbc-msgrow" }, message),
      reasonRow, abstract, tagRow, noteRow, notes);

  const canvas = h("canvas", { class: "wbc-map", width: "300", height: "220", title: "click a point to open its paper" });
  const mapNote = h("div", { class: "wb-meta wbc-map-note" }, "the paper on the map (ringed); colours: decisions as you see them");
  const sentence = h("div", { class: "wbc-sentence" });
  const chart = s("svg", { class: "wbc-chart", viewBox: "0 0 300 150", width: "300", height: "150", role: "img" });
  const lines = h("div", { class: "wb-meta wbc-lines" });
  const logBtn = h("button", { class: "wbc-btn", title: "record this claim in the review's history", onclick: () => send("log_claim") }, "Log this claim");
  const details = h("details", { class: "wbc-details" }, h("summary", {}, "details"), lines, logBtn);
  const panel = h("details", { class: "wbc-panel", open: "" },
    h("summary", {}, "Progress · when can I stop?"), sentence, chart, details);
  const side = h("div", { class: "wbc-side" }, canvas, mapNote, panel);
  el.append(h("div", { class: "wbc" }, main, paper ? null : side));

  // ---------------------------------------------------------------- boxes: Enter submits
  function submitReason(value) {
    const text = value !== undefined ? value : reasonBox.value;
    send("reason", text);
    refocus();
  }
  function submitTag() { send("tag", tagBox.value); refocus(); }
  function submitNote() { send("note", noteBox.value); refocus(); }
  function onEnter(box, fn, ctrl) {
    box.addEventListener("keydown", (event) => {
      // a key typed in a box belongs to the box: the notebook around it never sees it (as
      // ipywidgets' own boxes do), so Enter in the note is a new line, not a notebook command
      event.stopPropagation();
      if (event.key !== "Enter" || event.isComposing || event.altKey || event.shiftKey) return;
      const mod = event.ctrlKey || event.metaKey;
      if (ctrl ? !mod : mod) return; // a note: Ctrl+Enter saves, Enter is a new line
      event.preventDefault();
      event.stopPropagation();
      fn();
    });
  }
  onEnter(reasonBox, () => submitReason(), false);
  onEnter(tagBox, submitTag, false);
  onEnter(noteBox, submitNote, true);
  model.on("msg:custom", (msg) => {
    if (msg && msg.event === "clear") {
      const box = { reason: reasonBox, tag: tagBox, note: noteBox }[msg.box];
      if (box) box.value = "";
    }
  });

  // ---------------------------------------------------------------- drawing
  function drawCard() {
    const c = model.get("card") || {};
    const empty = !c.id;
    for (const n of [title, byline, relevance, status, abstract]) n.replaceChildren();
    head.replaceChildren();
    team.innerHTML = "";
    el.classList.toggle("wbc-empty", empty);
    if (empty) {
      title.append(h("i", { text: c.empty || "No papers match these filters." }));
      notes.replaceChildren();
      return;
    }
    head.append(c.where || `${c.position} of ${c.total} in this queue`, " · ", h("code", { text: c.id }));
    if (c.new_since) head.append(" · ", h("span", { class: "wb-new", text: `new since ${c.new_since}` }));
    if (c.match) head.append(` · found by ${c.match}`);
    title.innerHTML = c.title_html;
    byline.innerHTML = c.byline_html || "";
    const parts = [];
    if (c.relevance_html) parts.push(`<b>${c.relevance_html}</b>`);
    if (c.why_html) parts.push(`why: ${c.why_html}`);
    relevance.innerHTML = parts.join(" · ") + (c.details_html
      ? ` <details class="wb-details"><summary>details</summary> ${c.details_html}</details>` : "");
    relevance.classList.toggle("wb-relevance", !!(c.relevance_html || c.why_html));
    status.append("decision: ", c.decision ? h("b", { text: c.decision }) : "undecided");
    if (c.reason) status.append(` (${c.reason})`);
    status.append(" · tags: ");
    if ((c.tags || []).length) for (const t of c.tags) status.append(h("span", { class: "wb-tagchip", text: t }));
    else status.append("none");
    team.innerHTML = (c.votes_html || "") + (c.citations_html || "");
    abstract.innerHTML = c.abstract_html || "";
    abstract.scrollTop = 0;
    notes.replaceChildren();
    if ((c.notes_html || []).length) notes.append("notes:", h("ul", {}, ...c.notes_html.map((n) => h("li", { html: n }))));
  }

  function drawDecisions() {
    const c = model.get("card") || {};
    decisionRow.replaceChildren();
    for (const d of model.get("decisions") || []) {
      const on = c.decision === d || (d === "not retrieved" && c.reason === "not retrieved" && c.decision === "exclude");
      const key = KEYS[d];
      const label = (on ? "✓ " : "") + d + (key ? ` (${key})` : "");
      const b = h("button", { class: `wbc-btn wbc-decide wbc-${d.replace(" ", "-")}${on ? " wbc-on" : ""}`,
        onclick: () => { send("decide", d); refocus(); } }, label);
      b.disabled = !c.id;
      decisionRow.append(b);
    }
  }

  function drawMessage() {
    const m = model.get("message") || {};
    message.replaceChildren();
    if (!m.text) return;
    const cls = { ok: "wb-ok", err: "wb-err", info: "wb-info" }[m.kind] || "wb-info";
    const mark = { ok: "✓ ", err: "✗ " }[m.kind] || "";
    message.append(h("span", { class: cls, text: mark + m.text }));
  }

  function drawReason() {
    const r = model.get("reason_for") || {};
    chips.replaceChildren();
    const has = !!r.id;
    reasonRow.classList.toggle("wbc-off", !has);
    reasonBox.disabled = !has;
    reasonBtn.disabled = !has;
    if (!has) {
      reasonLabel.textContent = "decide, then give a reason: it goes to the paper just decided";
      return;
    }
    reasonLabel.replaceChildren(r.pending ? "reason to exclude " : "reason for ",
      h("b", { class: "wbc-reason-title", text: `“${r.title}”` }), ` (${r.decision}):`);
    if (r.decision === "exclude") {
      for (const name of model.get("reasons") || []) {
        chips.append(h("button", { class: "wbc-chip", title: `give “${r.title}” this reason`,
          onclick: () => submitReason(name) }, name));
      }
    }
  }

  function drawTags() {
    tagButtons.replaceChildren();
    const c = model.get("card") || {};
    for (const t of model.get("tags") || []) {
      const label = (t.on ? "✓ " : "") + (t.n <= 9 ? `${t.n} · ${t.name}` : t.name);
      const b = h("button", { class: `wbc-btn wbc-tag ${t.on ? "wb-tag-on" : "wb-tag-off"}`,
        title: `${t.on ? "remove" : "add"} tag ${t.name}`, onclick: () => { send("toggle", t.name); refocus(); } }, label);
      b.disabled = !c.id;
      tagButtons.append(b);
    }
  }

  function drawProgress() {
    const p = model.get("progress") || {};
    bar.max = Math.max(p.total || 0, 1);
    bar.value = p.screened || 0;
    barLabel.textContent = p.label || "";
  }

  // the map: every paper, decided ones in their colour, the paper on screen ringed
  let points = null, base = null, drawn = null; // drawn: the codes the base was drawn with
  function mapPoints() {
    const buf = model.get("map_xy");
    if (!buf || !buf.byteLength) return null;
    const bytes = buf instanceof DataView ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
      : new Uint8Array(buf.buffer || buf);
    return new Float32Array(bytes.slice().buffer);
  }
  function codes() {
    const buf = model.get("map_codes");
    if (!buf || !buf.byteLength) return null;
    return buf instanceof DataView ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : new Uint8Array(buf.buffer || buf);
  }
  const PAD = 8;
  const toCanvas = (x, y) => [PAD + x * (canvas.width - 2 * PAD), PAD + (1 - y) * (canvas.height - 2 * PAD)];
  function drawBase() {
    points = mapPoints();
    base = document.createElement("canvas");
    base.width = canvas.width; base.height = canvas.height;
    const g = base.getContext("2d");
    g.fillStyle = "#fff"; g.fillRect(0, 0, base.width, base.height);
    if (!points) return;
    const code = codes();
    drawn = code ? code.slice() : null;
    const n = points.length / 2;
    for (const pass of [0, 1]) { // undecided first, decided on top
      for (let i = 0; i < n; i++) {
        const c = code && i < code.length ? code[i] : 0;
        if ((c === 0) !== (pass === 0)) continue;
        drawPoint(g, i, c);
      }
    }
  }
  function drawPoint(g, i, c) {
    const n = points.length / 2;
    const r = n > 5000 ? 1 : n > 1000 ? 1.5 : 2.5;
    g.fillStyle = CODE_COLOURS[c] || CODE_COLOURS[0];
    const [x, y] = toCanvas(points[2 * i], points[2 * i + 1]);
    g.fillRect(x - r, y - r, 2 * r, 2 * r);
  }
  function recolour() {
    // the papers decided since the base was drawn are painted over it (decided ones lie on top);
    // an undo or a change of more than a few papers draws it again
    const code = codes();
    const changed = [];
    if (base && points && drawn && code && code.length === drawn.length) {
      for (let i = 0; i < code.length && changed.length <= 50; i++) if (code[i] !== drawn[i]) changed.push(i);
    }
    if (!base || !points || !drawn || !code || code.length !== drawn.length || changed.length > 50
        || changed.some((i) => code[i] === 0)) {
      base = null;
    } else {
      const g = base.getContext("2d");
      for (const i of changed) { drawPoint(g, i, code[i]); drawn[i] = code[i]; }
    }
    drawMap();
  }
  function drawMap() {
    if (!base) drawBase();
    const g = canvas.getContext("2d");
    g.drawImage(base, 0, 0);
    const i = model.get("current");
    delete canvas.dataset.x; delete canvas.dataset.y;
    if (!points || i < 0 || 2 * i + 1 >= points.length) return;
    const [x, y] = toCanvas(points[2 * i], points[2 * i + 1]);
    g.strokeStyle = "rgba(28,109,208,0.35)"; g.lineWidth = 1;
    g.beginPath(); g.moveTo(x, 0); g.lineTo(x, canvas.height); g.moveTo(0, y); g.lineTo(canvas.width, y); g.stroke();
    g.strokeStyle = "#111"; g.lineWidth = 2.5;
    g.beginPath(); g.arc(x, y, 7, 0, 2 * Math.PI); g.stroke();
    g.fillStyle = "#1c6dd0"; g.beginPath(); g.arc(x, y, 3.5, 0, 2 * Math.PI); g.fill();
    canvas.dataset.x = x.toFixed(1); // the ringed point, in canvas pixels (for the browser tests)
    canvas.dataset.y = y.toFixed(1);
  }
  canvas.addEventListener("click", (event) => {
    if (!points) return;
    const box = canvas.getBoundingClientRect();
    const px = (event.clientX - box.left) * canvas.width / box.width, py = (event.clientY - box.top) * canvas.height / box.height;
    let best = -1, bestD = 100; // within 10 px
    for (let i = 0; i < points.length / 2; i++) {
      const [x, y] = toCanvas(points[2 * i], points[2 * i + 1]);
      const d = (x - px) ** 2 + (y - py) ** 2;
      if (d < bestD) { bestD = d; best = i; }
    }
    if (best >= 0) { send("go", best); refocus(); }
  });

  // the progress chart: relevant found against papers read, and the random-order line
  function drawPanel() {
    const p = model.get("panel") || {};
    sentence.textContent = p.sentence || "";
    sentence.classList.toggle("wbc-stop", !!p.stop);
    lines.replaceChildren(...(p.lines || []).map((line) => h("div", { text: line })));
    chart.replaceChildren();
    const W = 300, H = 150, L = 34, R = 8, T = 10, B = 28;
    const curve = p.curve || [[0, 0]];
    const xmax = Math.max(curve[curve.length - 1][0], 1);
    const rnd = p.random && p.random.length === 2 ? p.random[1] : null;
    const rndAt = (x) => (rnd && rnd[0] > 0 ? rnd[1] * x / rnd[0] : 0);
    const ymax = Math.max(1, curve[curve.length - 1][1], rndAt(xmax));
    const X = (x) => L + (W - L - R) * x / xmax, Y = (y) => H - B - (H - T - B) * y / ymax;
    chart.append(s("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "wbc-axis" }),
      s("line", { x1: L, y1: T, x2: L, y2: H - B, class: "wbc-axis" }));
    const text = (x, y, t, anchor = "middle", cls = "wbc-tick") => {
      const n = s("text", { x, y, "text-anchor": anchor, class: cls }); n.textContent = t; return n;
    };
    chart.append(text(L, H - B + 12, "0"), text(W - R, H - B + 12, String(xmax), "end"),
      text(L - 4, T + 8, String(Math.round(ymax)), "end"), text(L - 4, H - B, "0", "end"),
      text((L + W - R) / 2, H - 4, "papers read", "middle", "wbc-axis-label"));
    const ylab = text(0, 0, "relevant found", "middle", "wbc-axis-label");
    ylab.setAttribute("transform", `translate(10 ${(T + H - B) / 2}) rotate(-90)`);
    chart.append(ylab);
    if (rnd) chart.append(s("line", { x1: X(0), y1: Y(0), x2: X(xmax), y2: Y(rndAt(xmax)), class: "wbc-random" }));
    chart.append(s("polyline", { points: curve.map(([x, y]) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(" "), class: "wbc-curve" }));
    const key = s("g", { class: "wbc-key" });
    key.append(s("line", { x1: L + 8, y1: T + 4, x2: L + 24, y2: T + 4, class: "wbc-curve" }), text(L + 28, T + 8, "you", "start"));
    if (rnd) key.append(s("line", { x1: L + 60, y1: T + 4, x2: L + 76, y2: T + 4, class: "wbc-random" }), text(L + 80, T + 8, "random order (expected)", "start"));
    chart.append(key);
    chart.setAttribute("aria-label", `${p.relevant || 0} relevant found in ${p.read || 0} papers read`);
  }

  // the map's pixels follow its size on screen (a wide cell: a bigger map)
  const sized = new ResizeObserver(() => {
    const w = Math.round(canvas.clientWidth), hgt = Math.round(canvas.clientHeight);
    if (w > 0 && hgt > 0 && (w !== canvas.width || hgt !== canvas.height)) {
      canvas.width = w; canvas.height = hgt; base = null; drawMap();
    }
  });
  sized.observe(canvas);

  function all() { drawCard(); drawDecisions(); drawMessage(); drawReason(); drawTags(); drawProgress(); drawPanel(); drawMap(); }
  all();
  model.on("change:card", () => { drawCard(); drawDecisions(); drawTags(); });
  model.on("change:decisions", drawDecisions);
  model.on("change:message", drawMessage);
  model.on("change:reason_for", () => { reasonBox.value = ""; drawReason(); });
  model.on("change:reasons", drawReason);
  model.on("change:tags", drawTags);
  model.on("change:progress", drawProgress);
  model.on("change:panel", drawPanel);
  model.on("change:map_xy", () => { base = null; drawMap(); });
  model.on("change:map_codes", recolour);
  model.on("change:current", drawMap);
  el.dataset.ready = "true";
  return () => sized.disconnect();
}

export default { render };
