// The viewer page: one live socket, one player, and a state that snapshots replace and events update.
import { Player, wireControls } from "./player.js";
import { LiveSocket, showConnection } from "./socket.js";
import { renderBallot, renderClips, renderMine, renderCountdown, setFeedback } from "./viewer-render.js";

const TICK_MS = 250; // countdown refresh: smooth enough for a seconds display
const SUBMIT_MESSAGES = {
  approved: "Your prompt is in the running. Ask your friends to vote!",
  held: "Thanks! A moderator will look at your prompt before it can be voted on.",
  rejected: "Your prompt was not accepted",
};

const state = {
  round: null,
  seq: -1,
  candidates: new Map(),
  myVote: null,
  myPrompts: [],
  onAir: null,
  pending: new Map(), // every clip heard of that has not reached viewers yet, by clip_id ("Next up")
  recent: [],
  clockOffsetMs: 0, // server clock minus ours, so every viewer's countdown hits zero together
  lastWinner: null,
  roundSpanMs: 0,
};

const $ = (id) => document.getElementById(id);
const script = $("viewer-script");
state.roundSpanMs = 1000 * Number(script.dataset.roundSeconds || 0);
const player = new Player($("video"), script.dataset.playlist);
const socket = new LiveSocket("/ws/live/", { onEvent: handle, onState: showConnection });
window.yolive = { state, player, socket }; // for the browser tests and for curious people

function redraw() {
  renderBallot(state, vote);
  renderMine(state);
  renderClips(state, replay);
}

const handlers = {
  snapshot(ev) {
    state.clockOffsetMs = Date.parse(ev.server_time) - Date.now();
    state.round = ev.round;
    state.seq = ev.round ? ev.round.seq : -1;
    state.candidates = new Map(ev.candidates.map((c) => [c.id, { ...c }]));
    state.myVote = ev.my_vote;
    state.myPrompts = ev.my_prompts;
    state.onAir = ev.on_air;
    state.pending = new Map(ev.rendering ? [[ev.rendering.clip_id, ev.rendering]] : []);
    state.recent = ev.recent;
    $("stand-in").hidden = !ev.stand_in;
    const box = $("prompt-text");
    box.maxLength = ev.prompt_max_chars;
    box.dataset.max = ev.prompt_max_chars;
    updateCounter();
    redraw();
  },
  tally(ev) {
    if (!state.round || ev.round_id !== state.round.id) return;
    if (ev.seq <= state.seq) return; // late or duplicate: a newer count is already shown
    state.seq = ev.seq;
    let unknown = false;
    for (const [id, votes] of Object.entries(ev.counts)) {
      const c = state.candidates.get(Number(id));
      if (c) c.votes = votes;
      else unknown = true;
    }
    if (unknown) socket.send({ type: "resync" }); // a candidate event was missed
    renderBallot(state, vote);
  },
  candidate(ev) {
    if (!state.round || ev.round_id !== state.round.id) return;
    if (!state.candidates.has(ev.prompt.id)) {
      state.candidates.set(ev.prompt.id, { ...ev.prompt, mine: state.myPrompts.some((p) => p.id === ev.prompt.id) });
      renderBallot(state, vote);
    }
  },
  round_opened(ev) {
    state.round = ev.round;
    state.seq = ev.round.seq;
    state.candidates = new Map();
    state.myVote = null;
    $("round-note").textContent = state.lastWinner ? `Round ${state.lastWinner.number} went to “${state.lastWinner.text}”.` : "";
    renderBallot(state, vote);
  },
  round_closed(ev) {
    if (state.round && state.round.id === ev.round_id) state.round = { ...state.round, state: "closed" };
    for (const [id, votes] of Object.entries(ev.counts || {})) {
      const c = state.candidates.get(Number(id));
      if (c) c.votes = votes;
    }
    state.lastWinner = ev.winner ? { number: ev.number, text: ev.winner.text } : null;
    $("round-note").textContent = ev.winner ? `Winner: “${ev.winner.text}”. Rendering it now.` : "Round closed.";
    renderBallot(state, vote);
  },
  clip(ev) {
    if (ev.status === "queued" || ev.status === "rendering" || ev.status === "ready") {
      state.pending.set(ev.clip_id, { clip_id: ev.clip_id, round_number: ev.round_number, prompt: ev.prompt, status: ev.status, progress: ev.progress ?? 0 });
    } else {
      state.pending.delete(ev.clip_id);
    }
    if (ev.status === "aired" && !state.recent.some((r) => r.clip_id === ev.clip_id)) {
      const replayUrl = `/hls/archive/${ev.clip_id}/index.m3u8`;
      state.recent = [{ clip_id: ev.clip_id, round_number: ev.round_number, prompt: ev.prompt, replay_url: replayUrl }, ...state.recent].slice(0, 6);
    }
    renderClips(state, replay);
  },
  now_playing(ev) {
    state.onAir = { clip_id: ev.clip_id, round_number: ev.round_number, prompt: ev.prompt };
    state.pending.delete(ev.clip_id);
    renderClips(state, replay);
  },
  submitted(ev) {
    const p = ev.prompt;
    state.myPrompts = [p, ...state.myPrompts.filter((q) => q.id !== p.id)];
    const text = p.status === "rejected" ? `${SUBMIT_MESSAGES.rejected}: ${p.reason}` : SUBMIT_MESSAGES[p.status];
    setFeedback(text, p.status === "rejected" ? "error" : "ok");
    if (p.status !== "rejected") {
      $("prompt-text").value = "";
      updateCounter();
    }
    $("prompt-submit").disabled = false;
    renderMine(state);
  },
  prompt_status(ev) {
    const p = state.myPrompts.find((q) => q.id === ev.prompt_id);
    if (p) Object.assign(p, { status: ev.status, reason: ev.reason, clip_url: ev.clip_url });
    if (ev.status === "aired") tellItAired(ev.clip_url);
    else if (ev.status === "rejected") setFeedback(`A moderator rejected your prompt: ${ev.reason}`, "error");
    else if (ev.status === "approved") setFeedback("A moderator approved your prompt: it is up for votes.", "ok");
    renderMine(state);
  },
  voted(ev) {
    if (state.round && ev.round_id === state.round.id) state.myVote = ev.prompt_id;
    renderBallot(state, vote);
  },
  error(ev) {
    $("prompt-submit").disabled = false;
    setFeedback(ev.message || "Something went wrong.", "error");
  },
};

function tellItAired(clipUrl) {
  setFeedback("Your prompt aired! ", "ok");
  const link = document.createElement("a");
  link.href = clipUrl;
  link.id = "aired-link";
  link.textContent = "Watch and share it";
  $("prompt-feedback").append(link);
}

function handle(ev) {
  const handler = handlers[ev.type];
  if (handler) handler(ev);
}

function vote(promptId) {
  if (!socket.send({ type: "vote", prompt_id: promptId })) setFeedback("Not connected: your vote was not sent. Reconnecting…", "error");
}

function replay(item) {
  $("replay-round").textContent = item.round_number;
  $("replaying").hidden = false; // first: the viewer sees the click took, whatever the player does next
  player.load(item.replay_url, false);
}

function updateCounter() {
  const box = $("prompt-text");
  const max = Number(box.dataset.max);
  const used = [...box.value].length;
  const counter = $("prompt-count");
  counter.textContent = `${used} / ${max}`;
  counter.classList.toggle("near-limit", used > max * 0.9);
}

function submitPrompt(event) {
  event.preventDefault();
  const text = $("prompt-text").value.trim();
  if (!text) {
    setFeedback("Write a prompt first.", "error");
    $("prompt-text").focus();
    return;
  }
  if (!socket.send({ type: "submit", text })) {
    setFeedback("Not connected: try again in a moment.", "error");
    return;
  }
  $("prompt-submit").disabled = true;
  setFeedback("Sending…", "");
}

function tick() {
  renderCountdown(state, Date.now() + state.clockOffsetMs);
}

$("prompt-form").addEventListener("submit", submitPrompt);
$("prompt-text").addEventListener("input", updateCounter);
$("prompt-text").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey) submitPrompt(e); // Enter sends, Shift+Enter breaks the line
});
function backToLive() {
  $("replaying").hidden = true;
  player.playLive();
}

$("back-to-live").addEventListener("click", backToLive);
wireControls(player, document.querySelector(".player"), {
  fullscreen: $("fullscreen"),
  pip: $("pip"),
  goLive: $("go-live"),
  onGoLive: backToLive,
});
updateCounter();
player.playLive();
socket.start();
setInterval(tick, TICK_MS);
