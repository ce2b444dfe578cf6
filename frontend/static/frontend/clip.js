// A clip's page: its replay (the same player as the live page) and a share button.
import { Player } from "./player.js";

const video = document.getElementById("video");
if (video) new Player(video, "").load(video.dataset.replay, false);

const button = document.getElementById("share");
const url = document.getElementById("share-url").value;
const feedback = document.getElementById("share-feedback");
if (navigator.share) button.textContent = "Share";
button.addEventListener("click", async () => {
  try {
    if (navigator.share) {
      await navigator.share({ title: document.title, url });
      return;
    }
    await navigator.clipboard.writeText(url);
    feedback.textContent = "Link copied.";
  } catch {
    document.getElementById("share-url").select(); // no clipboard here: leave it selected to copy by hand
    feedback.textContent = "Copy the selected link.";
  }
});
