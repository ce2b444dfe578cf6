// Drawing the viewer page from its state. Viewer text only ever goes in through textContent.

const $ = (id) => document.getElementById(id);

export function setFeedback(text, kind) {
  const el = $("prompt-feedback");
  el.textContent = text;
  el.dataset.kind = kind;
}

export function ranked(candidates) {
  return [...candidates.values()].sort((a, b) => b.votes - a.votes || a.id - b.id);
}

function candidateItem(id, onVote) {
  const li = document.createElement("li");
  li.className = "candidate";
  li.dataset.id = id;
  li.innerHTML = `
    <div class="candidate-top">
      <span class="candidate-text"></span>
      <span class="candidate-votes"></span>
    </div>
    <div class="bar" aria-hidden="true"><div class="bar-fill"></div></div>
    <button type="button" class="vote-button"></button>`;
  li.querySelector(".vote-button").addEventListener("click", () => onVote(id));
  return li;
}

export function renderBallot(state, onVote) {
  const list = $("candidates");
  const order = ranked(state.candidates);
  const total = order.reduce((sum, c) => sum + c.votes, 0);
  const open = Boolean(state.round && state.round.state === "open");
  $("round-number").textContent = state.round ? state.round.number : "–";
  $("no-candidates").hidden = order.length > 0;
  const existing = new Map([...list.children].map((li) => [Number(li.dataset.id), li]));
  const focused = document.activeElement;
  order.forEach((c, index) => {
    const li = existing.get(c.id) || candidateItem(c.id, onVote);
    existing.delete(c.id);
    const mine = state.myVote === c.id;
    li.classList.toggle("is-my-vote", mine);
    li.classList.toggle("is-leading", index === 0 && c.votes > 0);
    li.querySelector(".candidate-text").textContent = c.text;
    li.querySelector(".candidate-votes").textContent = `${c.votes} ${c.votes === 1 ? "vote" : "votes"}`;
    li.querySelector(".bar-fill").style.width = `${total ? (100 * c.votes) / total : 0}%`;
    const button = li.querySelector(".vote-button");
    button.textContent = mine ? "Your vote ✓" : "Vote";
    button.setAttribute("aria-pressed", String(mine));
    button.setAttribute("aria-label", `${mine ? "Your vote" : "Vote for"}: ${c.text} (${c.votes} ${c.votes === 1 ? "vote" : "votes"})`);
    button.disabled = !open;
    if (list.children[index] !== li) list.insertBefore(li, list.children[index] || null);
  });
  for (const stale of existing.values()) stale.remove();
  if (focused && list.contains(focused) && document.activeElement !== focused) focused.focus();
}

const STATUS_TEXT = { approved: "in the running", held: "waiting for a moderator", rejected: "not accepted", aired: "aired", pending: "checking" };

export function renderMine(state) {
  const list = $("my-prompts");
  list.replaceChildren(
    ...state.myPrompts.map((p) => {
      const li = document.createElement("li");
      li.className = `my-prompt status-${p.status}`;
      li.dataset.id = p.id;
      const text = document.createElement("span");
      text.className = "my-prompt-text";
      text.textContent = p.text;
      const status = document.createElement("span");
      status.className = "my-prompt-status";
      status.textContent = STATUS_TEXT[p.status] || p.status;
      li.append(text, status);
      if (p.status === "aired" && p.clip_url) {
        const link = document.createElement("a");
        link.className = "my-prompt-link";
        link.href = p.clip_url;
        link.textContent = "watch and share";
        li.append(link);
      }
      if (p.status === "rejected" && p.reason) {
        const reason = document.createElement("span");
        reason.className = "my-prompt-reason";
        reason.textContent = `Reason: ${p.reason}`;
        li.append(reason);
      }
      return li;
    }),
  );
  $("mine-label").parentElement.hidden = state.myPrompts.length === 0;
}

// "Next up" is the earliest clip not yet on air; a later round's queued clip does not push it aside.
function nextUp(pending) {
  let best = null;
  for (const clip of pending.values()) if (!best || clip.round_number < best.round_number) best = clip;
  return best;
}

export function renderClips(state, onReplay) {
  $("on-air").textContent = state.onAir ? `Round ${state.onAir.round_number}: ${state.onAir.prompt}` : "Waiting for the first clip…";
  const next = nextUp(state.pending);
  $("next").hidden = !next;
  if (next) {
    $("next-prompt").textContent = `Round ${next.round_number}: ${next.prompt}`;
    $("render-progress").value = next.progress || 0;
    const pct = Math.round(100 * (next.progress || 0));
    $("render-status").textContent = next.status === "ready" ? "ready" : next.status === "queued" ? "queued" : `${pct}% rendered`;
  }
  const list = $("recent");
  list.replaceChildren(
    ...state.recent.map((item) => {
      const li = document.createElement("li");
      const label = document.createElement("a");
      label.href = `/clips/${item.clip_id}/`;
      label.textContent = `Round ${item.round_number}: ${item.prompt}`;
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "Replay";
      button.setAttribute("aria-label", `Replay round ${item.round_number}: ${item.prompt}`);
      button.addEventListener("click", () => onReplay(item));
      li.append(label, button);
      return li;
    }),
  );
  $("recent-empty").hidden = state.recent.length > 0;
}

export function renderCountdown(state, nowMs) {
  const round = state.round;
  const el = $("countdown");
  const bar = $("time-left");
  if (!round) {
    el.textContent = "–";
    bar.style.width = "0%";
    return;
  }
  const endsMs = Date.parse(round.ends_at);
  const leftS = Math.max(0, Math.ceil((endsMs - nowMs) / 1000));
  const text = round.state === "open" && leftS > 0 ? `${leftS} s` : "closing…";
  if (el.textContent !== text) {
    el.textContent = text;
    $("countdown-text").textContent = round.state === "open" ? `${leftS} seconds left to vote` : "Voting closed";
  }
  // The bar spans the configured round length (the round's opening time is not in the protocol).
  const spanMs = Math.max(state.roundSpanMs, 1000);
  bar.style.width = `${Math.min(100, (100 * Math.max(0, endsMs - nowMs)) / spanMs)}%`;
}
