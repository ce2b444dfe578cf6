"""Subjects as RGBA sprites, drawn from Noto Color Emoji (the font's one bitmap size is 109 px)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from lab.world.vocabulary import SUBJECTS

EMOJI_FONT = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
FONT_SIZE = 109  # the only size the colour bitmap font has
_EMOJI = {entry.name: entry.emoji for entry in SUBJECTS}


class MissingEmojiFont(RuntimeError):
    pass


@cache
def _font() -> ImageFont.FreeTypeFont:
    if not EMOJI_FONT.exists():
        raise MissingEmojiFont(
            f"{EMOJI_FONT} is missing: install Debian's fonts-noto-color-emoji (make setup)"
        )
    return ImageFont.truetype(str(EMOJI_FONT), FONT_SIZE)


@cache
def master(name: str) -> Image.Image:
    """The subject's emoji cropped to its opaque pixels, on a square transparent canvas (about 128 px)."""
    canvas = Image.new("RGBA", (160, 160), (0, 0, 0, 0))
    ImageDraw.Draw(canvas).text((10, 10), _EMOJI[name], font=_font(), embedded_color=True)
    box = canvas.getchannel("A").point(lambda a: 255 if a > 8 else 0).getbbox()
    if box is None:
        raise MissingEmojiFont(f"the emoji font drew nothing for {name!r}")
    cropped = canvas.crop(box)
    side = max(cropped.size)
    square = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    square.paste(cropped, ((side - cropped.width) // 2, (side - cropped.height) // 2))
    return square


def sprite(name: str, size: int, angle: float = 0.0) -> np.ndarray:
    """(size, size, 4) float32 in [0, 1], premultiplied by nothing: RGB and alpha apart."""
    image = master(name)
    if angle:
        image = image.rotate(angle, resample=Image.Resampling.BILINEAR, expand=False)
    image = image.resize(
        (size, size), Image.Resampling.LANCZOS if size < image.width else Image.Resampling.BILINEAR
    )
    return np.asarray(image, dtype=np.float32) / 255.0
