// Scores the pasted conversation with the WebAssembly package and draws the per-turn
// frustration and trust curves of one conversation. No framework, no build step.
import init, { score, validate } from "../../bindings-wasm/pkg/web/undertone_wasm.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
// Plot area inside the 720×260 viewBox.
const PLOT = { left: 44, right: 704, top: 16, bottom: 232 };

/** How a score is shown: core rounds to 4 decimals; show all of them. */
const formatScore = (x) => x.toFixed(4);

let scored = null; // { result, events }

function showError(e) {
  $("results").hidden = true;
  $("error").hidden = false;
  $("error").textContent = e && e.code ? `${e.code}: ${e.message}` : `ERROR: ${e && e.message ? e.message : e}`;
  document.body.dataset.state = "error";
}

function clearError() {
  $("error").hidden = true;
  $("error").textContent = "";
}

function onScore() {
  clearError();
  const text = $("input").value;
  const deploymentId = $("deployment-id").value.trim() || undefined;
  try {
    const result = score(text, { deploymentId });
    // The validated request holds each event's content at the turns' event_index.
    const { events } = validate(text, { deploymentId });
    scored = { result, events };
  } catch (e) {
    scored = null;
    showError(e);
    return;
  }
  renderSummary(scored.result);
  const select = $("conversation");
  select.replaceChildren();
  scored.result.intelligence.conversations.forEach((c, i) => {
    if (c.turns.length === 0) return;
    select.append(new Option(`${c.conversation_id} (${c.turns.length} human turns)`, String(i)));
  });
  $("results").hidden = false;
  renderConversation();
  document.body.dataset.state = "scored";
}

function renderSummary(result) {
  const i = result.intelligence;
  const z = i.layer_z;
  $("summary").replaceChildren();
  const line = document.createElement("p");
  line.textContent =
    `${i.human_turn_count} human turns in ${i.conversation_count} conversations · ` +
    `pipeline ${result.pipeline} · archetype ${i.archetype} · ` +
    `frustration ${formatScore(z.frustration_buildup.score)} (${z.frustration_buildup.band}), ` +
    `trust ${formatScore(z.trust_calibration.score)} (${z.trust_calibration.band})`;
  const finding = document.createElement("p");
  finding.id = "key-finding";
  finding.textContent = i.key_finding;
  $("summary").append(line, finding);
}

function renderConversation() {
  const index = Number($("conversation").value);
  const conversation = scored.result.intelligence.conversations[index];
  const turns = conversation ? conversation.turns : [];
  $("curves").dataset.conversationId = conversation ? conversation.conversation_id : "";
  $("curves").dataset.turnCount = String(turns.length);
  drawGrid();
  drawCurve("frustration", turns.map((t) => t.layer_z.frustration_buildup.score));
  drawCurve("trust", turns.map((t) => t.layer_z.trust_calibration.score));
  fillTable(turns);
}

const x = (i, n) =>
  n === 1 ? (PLOT.left + PLOT.right) / 2 : PLOT.left + (i * (PLOT.right - PLOT.left)) / (n - 1);
const y = (score) => PLOT.bottom - score * (PLOT.bottom - PLOT.top);

function svg(name, attrs, text) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

function drawGrid() {
  const grid = $("grid");
  grid.replaceChildren();
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    grid.append(svg("line", { class: "grid", x1: PLOT.left, x2: PLOT.right, y1: y(v), y2: y(v) }));
    grid.append(svg("text", { class: "axis", x: PLOT.left - 8, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(2)));
  }
  const n = Number($("curves").dataset.turnCount);
  for (let i = 0; i < n; i++) {
    grid.append(svg("text", { class: "axis", x: x(i, n), y: PLOT.bottom + 18, "text-anchor": "middle" }, String(i + 1)));
  }
  $("markers").replaceChildren();
}

function drawCurve(name, scores) {
  const n = scores.length;
  const points = scores.map((s, i) => `${x(i, n).toFixed(1)},${y(s).toFixed(1)}`);
  $(`${name}-curve`).setAttribute("points", points.join(" "));
  scores.forEach((s, i) => {
    const dot = svg("circle", { class: name, cx: x(i, n), cy: y(s), r: 3.5, "data-turn": i });
    dot.append(svg("title", {}, `turn ${i + 1}: ${name} ${formatScore(s)}`));
    $("markers").append(dot);
  });
}

function cell(text, attrs = {}) {
  const td = document.createElement("td");
  td.textContent = text;
  for (const [k, v] of Object.entries(attrs)) td.setAttribute(k, v);
  return td;
}

function band(dimension, value) {
  const td = cell("", { "data-field": `${dimension}-band` });
  const span = document.createElement("span");
  span.className = `band band-${value}`;
  span.textContent = value;
  td.append(span);
  return td;
}

function fillTable(turns) {
  const body = $("turns").tBodies[0];
  body.replaceChildren();
  turns.forEach((t, i) => {
    const content = scored.events[t.event_index]?.content ?? "";
    const excerpt = content.length > 90 ? `${content.slice(0, 89)}…` : content;
    const f = t.layer_z.frustration_buildup;
    const tr = t.layer_z.trust_calibration;
    const row = document.createElement("tr");
    row.dataset.turn = String(i);
    row.append(
      cell(String(i + 1), { class: "num" }),
      cell(String(t.event_index), { class: "num", "data-field": "event-index" }),
      cell(t.actor_id),
      cell(excerpt, { "data-field": "content", title: content }),
      cell(formatScore(f.score), { class: "num", "data-field": "frustration" }),
      band("frustration", f.band),
      cell(formatScore(tr.score), { class: "num", "data-field": "trust" }),
      band("trust", tr.band),
    );
    body.append(row);
  });
}

async function loadExample() {
  clearError();
  try {
    const response = await fetch("../support-refund-goes-wrong.json");
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    $("input").value = await response.text();
    document.body.dataset.example = "loaded";
  } catch (e) {
    $("error").hidden = false;
    $("error").textContent = `could not load the example: ${e.message}`;
  }
}

$("score").addEventListener("click", onScore);
$("load-example").addEventListener("click", loadExample);
$("conversation").addEventListener("change", renderConversation);

init().then(
  () => {
    $("score").disabled = false;
    $("status").textContent = "Ready.";
    document.body.dataset.ready = "true";
  },
  (e) => {
    $("status").textContent = "";
    showError(new Error(`the WebAssembly module did not load (${e.message}); run scripts/build-wasm`));
  },
);
