// The live player: hls.js where Media Source Extensions exist, the browser's own HLS (Safari, iOS)
// otherwise. Starts muted (browsers only autoplay muted video); one tap unmutes.

const LIVE_CONFIG = {
  lowLatencyMode: false, // ffmpeg writes plain HLS; 10 s clips do not need LL-HLS
  liveSyncDurationCount: 3, // about 6 s behind the live edge with 2 s segments
  maxLiveSyncPlaybackRate: 1.2, // catch up gently after a stall instead of jumping
  backBufferLength: 30,
};
const RETRY_MS = 3000; // a playlist that is not there yet (broadcaster starting) is tried again after this

export class Player {
  constructor(video, liveUrl) {
    this.video = video;
    this.liveUrl = liveUrl;
    this.hls = null;
    this.log = []; // hls.js and media events, read by the browser tests
    this.mediaRecoveries = 0;
    for (const name of ["waiting", "playing", "stalled"]) {
      video.addEventListener(name, () => this.note(name));
    }
  }

  note(type, detail = {}) {
    this.log.push({ type, t: performance.now(), ...detail });
    if (this.log.length > 500) this.log.shift();
  }

  playLive() {
    this.load(this.liveUrl, true);
  }

  load(url, live) {
    this.destroy();
    this.live = live;
    const video = this.video;
    const Hls = window.Hls;
    if (Hls && Hls.isSupported()) {
      const hls = new Hls(live ? LIVE_CONFIG : { backBufferLength: 30 });
      this.hls = hls;
      hls.on(Hls.Events.MANIFEST_PARSED, () => {
        this.note("manifest");
        this.tryPlay();
      });
      hls.on(Hls.Events.FRAG_CHANGED, (_e, data) => this.note("frag", { sn: data.frag.sn }));
      hls.on(Hls.Events.ERROR, (_e, data) => this.onError(data, url));
      hls.loadSource(url);
      hls.attachMedia(video);
    } else if (video.canPlayType("application/vnd.apple.mpegurl")) {
      video.src = url; // Safari plays HLS itself
      video.addEventListener("loadedmetadata", () => this.tryPlay(), { once: true });
    } else {
      this.note("unsupported");
    }
  }

  onError(data, url) {
    this.note("error", { fatal: data.fatal, details: data.details });
    if (!data.fatal) return;
    const Hls = window.Hls;
    if (data.type === Hls.ErrorTypes.MEDIA_ERROR && this.mediaRecoveries < 3) {
      this.mediaRecoveries += 1;
      this.hls.recoverMediaError();
      return;
    }
    // Network errors (a playlist not written yet, a restarting server): start over shortly.
    setTimeout(() => {
      if (this.hls && this.hls.url === url) this.load(url, this.live);
    }, RETRY_MS);
  }

  tryPlay() {
    const attempt = this.video.play();
    if (attempt && attempt.catch) attempt.catch(() => this.note("autoplay-blocked"));
  }

  destroy() {
    if (this.hls) {
      this.hls.destroy();
      this.hls = null;
    }
  }
}

export function wireUnmute(video, button) {
  const sync = () => {
    const muted = video.muted;
    button.setAttribute("aria-pressed", String(!muted));
    button.textContent = muted ? "Tap to unmute" : "Mute";
    button.classList.toggle("is-unmuted", !muted);
  };
  button.addEventListener("click", () => {
    video.muted = !video.muted;
    if (video.paused) video.play().catch(() => {});
    sync();
  });
  video.addEventListener("volumechange", sync);
  sync();
}
