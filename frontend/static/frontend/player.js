// The live player: hls.js where Media Source Extensions exist, the browser's own HLS (Safari, iOS)
// otherwise. Muted, so browsers autoplay it (the stream has no sound track, so there is nothing to unmute).

const LIVE_CONFIG = {
  lowLatencyMode: false, // ffmpeg writes plain HLS; 10 s clips do not need LL-HLS
  liveSyncDurationCount: 3, // about 3 s behind the live edge with 1 s segments
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

  // Where the player holds live: hls.js's sync point, or for the browser's own HLS, three segments (6 s)
  // from the end of what can be played.
  livePosition() {
    if (this.hls) return this.hls.liveSyncPosition ?? null;
    const seekable = this.video.seekable;
    return seekable.length ? Math.max(0, seekable.end(seekable.length - 1) - 6) : null;
  }

  behindLive() {
    const live = this.livePosition();
    return live === null ? 0 : live - this.video.currentTime;
  }

  destroy() {
    if (this.hls) {
      this.hls.destroy();
      this.hls = null;
    }
  }
}

// More than this far behind where the player holds live (hls.js: three segments from the edge), a viewer
// is offered a jump back. The live window is 12 s, so nobody playing falls more than 9 s behind that
// point, and hls.js catches up at 1.2x by itself: 3 s leaves room for both.
const BEHIND_LIVE_S = 3;

// Full screen, picture-in-picture where the browser has it, and "Go to live" while behind.
export function wireControls(player, container, { fullscreen, pip, goLive, onGoLive }) {
  const video = player.video;
  fullscreen.addEventListener("click", () => {
    if (document.fullscreenElement) document.exitFullscreen();
    else if (container.requestFullscreen) container.requestFullscreen();
    else if (video.webkitEnterFullscreen) video.webkitEnterFullscreen(); // iPhone: the video alone
  });
  document.addEventListener("fullscreenchange", () => {
    fullscreen.textContent = document.fullscreenElement ? "Exit full screen" : "Full screen";
  });
  pip.hidden = !(document.pictureInPictureEnabled && !video.disablePictureInPicture);
  pip.addEventListener("click", () => {
    if (document.pictureInPictureElement) document.exitPictureInPicture();
    else video.requestPictureInPicture().catch(() => player.note("pip-refused"));
  });
  goLive.addEventListener("click", () => {
    if (!player.live) onGoLive(); // a replay: back to the live stream
    else {
      const target = player.livePosition();
      if (target !== null) video.currentTime = target;
      video.play().catch(() => {});
    }
    goLive.hidden = true;
  });
  const check = () => {
    goLive.hidden = !player.live || !(player.behindLive() > BEHIND_LIVE_S || video.paused);
  };
  for (const name of ["timeupdate", "pause", "play", "seeked"]) video.addEventListener(name, check);
}
