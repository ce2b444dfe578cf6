"""What goes into the pipe: clip frames, the caption over them, and the filler slate.

Text is drawn with Pillow once per caption (or once per filler segment); per frame only the caption's band
is blended with numpy, so the per-frame Python cost stays a small fraction of the frame.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"
CAPTION_MAX_LINES = 2
CAPTION_SHADE = 150  # alpha of the band behind caption text: readable over any picture, still see-through

Frame = np.ndarray  # (height, width, 3) uint8 RGB


class BadClipFrames(ValueError):
    """A clip's frame file cannot air: missing, unreadable or the wrong shape."""


@functools.cache
def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / name), size)


def load_clip_frames(path: str | Path, width: int, height: int) -> np.ndarray:
    """The clip's frames, memory-mapped (a 10 s clip is over 100 MB and is read once, in order)."""
    try:
        frames = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise BadClipFrames(f"cannot read frames {path}: {exc}") from exc
    expected = (height, width, 3)
    if frames.ndim != 4 or frames.shape[1:] != expected or frames.dtype != np.uint8 or len(frames) == 0:
        raise BadClipFrames(
            f"frames {path} are {frames.dtype}{tuple(frames.shape)}, the stream needs uint8 (n, *{expected})"
        )
    return frames


def clip_frame(frames: np.ndarray, index: int) -> Frame:
    """Frame `index` of a clip, holding the last frame when the clip is shorter than its slot."""
    return frames[min(index, len(frames) - 1)]


def fitted(text: str, name: str, size: int, width: int) -> ImageFont.FreeTypeFont:
    """The font at `size`, or smaller until `text` fits on one line of `width`."""
    face = font(name, size)
    while size > 8 and face.getlength(text) > width:
        size -= 1
        face = font(name, size)
    return face


def wrap(text: str, face: ImageFont.FreeTypeFont, width: int, max_lines: int) -> list[str]:
    words = " ".join(text.split()).split(" ")
    lines: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}".strip()
        if face.getlength(candidate) <= width or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        while lines[-1] and face.getlength(lines[-1] + "…") > width:
            lines[-1] = lines[-1][:-1]
        lines[-1] = lines[-1].rstrip() + "…"
    return lines


@dataclass(frozen=True)
class Caption:
    """A text band blended over the bottom of each frame: premultiplied colour and alpha, drawn once."""

    top: int
    colour: np.ndarray  # (band, width, 3) uint16, already multiplied by alpha
    keep: np.ndarray  # (band, width, 1) uint16, 255 - alpha

    def apply(self, frame: Frame) -> Frame:
        out = np.array(frame)  # one copy of the frame; only the band is computed
        band = out[self.top :]
        band[:] = ((band * self.keep + self.colour) // 255).astype(np.uint8)
        return out


@functools.lru_cache(maxsize=8)
def caption(text: str, width: int, height: int) -> Caption:
    size = max(10, height // 16)
    face = font(BOLD, size)
    margin = size // 2
    lines = wrap(text, face, width - 2 * margin, CAPTION_MAX_LINES)
    line_height = int(size * 1.25)
    band_height = min(height, len(lines) * line_height + 2 * margin)
    image = Image.new("RGBA", (width, band_height), (0, 0, 0, CAPTION_SHADE))
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((margin, margin + i * line_height), line, font=face, fill=(255, 255, 255, 255))
    rgba = np.asarray(image).astype(np.uint16)
    alpha = rgba[:, :, 3:4]
    return Caption(top=height - band_height, colour=rgba[:, :, :3] * alpha, keep=255 - alpha)


def slate(
    width: int, height: int, title: str, detail: str, progress: float | None, background: Frame | None
) -> Frame:
    """A filler picture that looks intended: the last frame dimmed (or a dark gradient), a title, what is
    coming and, while a clip renders, a progress bar."""
    if background is not None:
        base = Image.fromarray((np.asarray(background) // 3).astype(np.uint8))
    else:
        ramp = np.linspace(18, 48, height, dtype=np.float32)[:, None, None]
        tint = np.array([0.8, 0.7, 1.0], dtype=np.float32)
        base = Image.fromarray(np.broadcast_to(ramp * tint, (height, width, 3)).astype(np.uint8))
    draw = ImageDraw.Draw(base)
    margin = width // 12
    title_face = fitted(title, BOLD, max(12, height // 12), width - 2 * margin)
    detail_face = font(REGULAR, max(10, height // 18))
    y = height // 3
    draw.text((margin, y), title, font=title_face, fill=(255, 255, 255))
    y += int(title_face.size * 1.5)
    for line in wrap(detail, detail_face, width - 2 * margin, 2):
        draw.text((margin, y), line, font=detail_face, fill=(210, 210, 225))
        y += int(detail_face.size * 1.3)
    if progress is not None:
        bar_top = y + detail_face.size // 2
        bar_height = max(4, height // 40)
        filled = margin + int((width - 2 * margin) * min(max(progress, 0.0), 1.0))
        draw.rectangle((margin, bar_top, width - margin, bar_top + bar_height), fill=(70, 70, 90))
        draw.rectangle((margin, bar_top, filled, bar_top + bar_height), fill=(120, 200, 255))
        label = f"{round(progress * 100)}%"
        draw.text((margin, bar_top + bar_height + 4), label, font=detail_face, fill=(210, 210, 225))
    return np.asarray(base)
