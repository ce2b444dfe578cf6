// A WebSocket that reconnects by itself (with backoff and jitter) and reports its state.
// The server sends a fresh snapshot on every connect, so a reconnect is also a full resync.

const FIRST_RETRY_MS = 500; // quick first retry: most drops are a restarting web process
const MAX_RETRY_MS = 10000; // never wait longer than this between tries
const JITTER = 0.3; // spread reconnects so thousands of viewers do not return in one instant

export class LiveSocket {
  constructor(path, { onEvent, onState }) {
    this.url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
    this.onEvent = onEvent;
    this.onState = onState;
    this.retryMs = FIRST_RETRY_MS;
    this.ws = null;
    this.stopped = false;
  }

  start() {
    this.stopped = false;
    this.open();
    window.addEventListener("online", () => this.reconnectSoon(0));
  }

  open() {
    this.onState(this.retryMs === FIRST_RETRY_MS ? "connecting" : "reconnecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.retryMs = FIRST_RETRY_MS;
      this.onState("open");
    });
    ws.addEventListener("message", (msg) => {
      let event;
      try {
        event = JSON.parse(msg.data);
      } catch {
        return; // a garbled frame is dropped; the next snapshot repairs anything missed
      }
      this.onEvent(event);
    });
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (ev.code === 4403) {
        this.onState("forbidden");
        return;
      }
      this.onState("reconnecting");
      this.reconnectSoon(this.retryMs);
      this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
    });
  }

  reconnectSoon(delayMs) {
    if (this.ws || this.stopped) return;
    clearTimeout(this.timer);
    const wait = delayMs * (1 - JITTER / 2 + Math.random() * JITTER);
    this.timer = setTimeout(() => this.open(), wait);
  }

  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  // Drop the connection on purpose (tests use it to prove the page comes back by itself).
  drop() {
    if (this.ws) this.ws.close();
  }
}

export const CONNECTION_TEXT = {
  connecting: "Connecting…",
  open: "Live",
  reconnecting: "Reconnecting…",
  forbidden: "Not allowed",
};

export function showConnection(state) {
  const el = document.getElementById("connection");
  if (!el) return;
  el.dataset.state = state;
  el.textContent = CONNECTION_TEXT[state] || state;
}
