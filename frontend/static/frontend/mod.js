// The moderation panel: a live feed from /ws/mod/ and one-click actions as CSRF-checked POSTs.
import { LiveSocket, showConnection } from "./socket.js";

const $ = (id) => document.getElementById(id);
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const TIMEOUT_S = 600; // the one-click timeout on a held card

function say(text, kind) {
  const el = $("mod-status");
  el.textContent = text;
  el.dataset.kind = kind;
}

async function post(path, fields = {}) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  const response = await fetch(path, { method: "POST", body, headers: { "X-CSRFToken": csrf }, credentials: "same-origin" });
  let data = {};
  try {
    data = await response.json();
  } catch {
    data = { error: `The server answered ${response.status}.` };
  }
  if (!response.ok) throw new Error(data.error || `The server answered ${response.status}.`);
  return data;
}

async function act(label, path, fields, after) {
  try {
    const data = await post(path, fields);
    say(`${label}: done.`, "ok");
    if (after) after(data);
  } catch (err) {
    say(`${label}: ${err.message}`, "error");
  }
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function heldCard(p) {
  const li = el("li", "held-card");
  li.dataset.id = p.id;
  li.dataset.author = p.author ? p.author.key : "";
  const meta = p.author ? `${p.reason} · by ${p.author.name}` : p.reason;
  const actions = el("div", "held-actions");
  const approve = el("button", "primary", "Approve");
  approve.dataset.act = "approve";
  const label = el("label", "visually-hidden", "Reason for rejecting");
  label.htmlFor = `reason-${p.id}`;
  const reason = el("input", "reject-reason");
  Object.assign(reason, { type: "text", id: `reason-${p.id}`, placeholder: "Reason (optional)", maxLength: 500 });
  const reject = el("button", "danger", "Reject");
  reject.dataset.act = "reject";
  actions.append(approve, label, reason, reject);
  if (p.author) {
    const timeout = el("button", "", "Time out author 10 min");
    timeout.dataset.act = "timeout";
    const ban = el("button", "danger", "Ban author");
    ban.dataset.act = "ban";
    actions.append(timeout, ban);
  }
  for (const b of actions.querySelectorAll("button")) b.type = "button";
  li.append(el("span", "held-text", p.text), el("span", "held-meta", meta));
  if (p.findings && p.findings.length) li.append(findingsList(p.findings));
  li.append(actions);
  return li;
}

// Which category holds the prompt and which of its words: the moderator decides on these, not on a score.
function findingsList(findings) {
  const list = el("ul", "held-findings");
  for (const f of findings) {
    const item = el("li");
    item.dataset.category = f.category;
    item.append(el("strong", "", f.label), document.createTextNode(f.why ? ` (${f.why}):` : ":"));
    for (const word of f.words) item.append(document.createTextNode(" "), el("mark", "", word));
    list.append(item);
  }
  return list;
}

function updateHeldCount() {
  const n = $("held").children.length;
  $("held-count").textContent = `(${n})`;
  $("held-empty").hidden = n > 0;
}

function removeHeld(id) {
  const card = $("held").querySelector(`[data-id="${Number(id)}"]`);
  if (card) card.remove();
  updateHeldCount();
}

function prependLimited(list, item, limit = 50) {
  list.querySelectorAll(":scope > .muted").forEach((n) => n.remove());
  list.prepend(item);
  while (list.children.length > limit) list.lastElementChild.remove();
}

const handlers = {
  held(ev) {
    if ($("held").querySelector(`[data-id="${Number(ev.prompt.id)}"]`)) return;
    $("held").append(heldCard(ev.prompt));
    updateHeldCount();
  },
  prompt_status(ev) {
    removeHeld(ev.prompt_id);
  },
  audit(ev) {
    const time = new Date(ev.at).toLocaleTimeString([], { hour12: false });
    prependLimited($("audit"), el("li", "", `${time} · ${ev.actor} · ${ev.action} · ${ev.target}`));
  },
  round_closed(ev) {
    if ($("rounds").querySelector(`[data-round="${Number(ev.number)}"]`)) return; // heard from both groups
    const winner = ev.winner ? ev.winner.text : "none";
    const item = el("li", "", `Round ${ev.number} · ${ev.total} vote${ev.total === 1 ? "" : "s"} · winner: ${winner}`);
    item.dataset.round = ev.number;
    prependLimited($("rounds"), item, 20);
  },
  clip(ev) {
    showClip(ev.clip_id, `Round ${ev.round_number} · ${ev.status}${ev.status === "rendering" ? ` ${Math.round(100 * (ev.progress || 0))}%` : ""}: ${ev.prompt}`, ev.status);
  },
  now_playing(ev) {
    showClip(ev.clip_id, `Round ${ev.round_number} · on_air: ${ev.prompt}`, "on_air");
  },
};

const GONE = new Set(["aired", "failed", "skipped"]);

function showClip(id, text, status) {
  const list = $("clips");
  list.querySelectorAll(":scope > .muted").forEach((n) => n.remove());
  let item = list.querySelector(`[data-clip="${Number(id)}"]`);
  if (GONE.has(status)) {
    if (item) item.remove();
    return;
  }
  if (!item) {
    item = el("li");
    item.dataset.clip = id;
    list.append(item);
  }
  item.textContent = text;
}

// The card's reason box is the reason for rejecting it, and for a timeout or ban of its author.
const reasonOf = (card, fallback) => card.querySelector(".reject-reason").value.trim() || fallback;

$("held").addEventListener("click", (e) => {
  const button = e.target.closest("button[data-act]");
  if (!button) return;
  const card = button.closest(".held-card");
  const id = card.dataset.id;
  if (button.dataset.act === "approve") {
    act("Approve", `/mod/prompts/${id}/approve`, {}, () => removeHeld(id));
  } else if (button.dataset.act === "reject") {
    act("Reject", `/mod/prompts/${id}/reject`, { reason: reasonOf(card, "") }, () => removeHeld(id));
  } else if (button.dataset.act === "timeout") {
    act("Time out", "/mod/restrictions", { viewer_key: card.dataset.author, duration: TIMEOUT_S, reason: reasonOf(card, "timed out over a held prompt") });
  } else if (button.dataset.act === "ban") {
    act("Ban", "/mod/restrictions", { viewer_key: card.dataset.author, duration: "", reason: reasonOf(card, "banned over a held prompt") });
  }
});

$("skip").addEventListener("click", () => act("Skip", "/mod/skip", {}));

function formFields(form) {
  return Object.fromEntries(new FormData(form).entries());
}

const reloadSoon = () => setTimeout(() => location.reload(), 400);
for (const [formId, label, path] of [
  ["lockdown-form", "Lockdown", "/mod/lockdown"],
  ["restrict-form", "Restriction", "/mod/restrictions"],
  ["term-form", "Blocked term", "/mod/terms"],
]) {
  $(formId).addEventListener("submit", (e) => {
    e.preventDefault();
    act(label, path, formFields(e.target), reloadSoon);
  });
}
for (const form of document.querySelectorAll(".level-form")) {
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    act(`Level of ${form.dataset.category}`, "/mod/levels", formFields(form), reloadSoon);
  });
}
document.addEventListener("click", (e) => {
  const lift = e.target.closest("button[data-lift]");
  if (lift) act("Lift", `/mod/restrictions/${lift.dataset.lift}/lift`, {}, reloadSoon);
  const remove = e.target.closest("button[data-remove-term]");
  if (remove) act("Remove term", `/mod/terms/${remove.dataset.removeTerm}/delete`, {}, reloadSoon);
});

let dropped = false;
const socket = new LiveSocket("/ws/mod/", {
  onEvent: (ev) => handlers[ev.type] && handlers[ev.type](ev),
  onState: (state) => {
    showConnection(state);
    // Events sent while the socket was down are lost: the page itself is the fresh snapshot.
    if (state === "reconnecting") dropped = true;
    if (state === "open" && dropped) location.reload();
  },
});
window.yoliveMod = { socket };
socket.start();
