"""What airs when no clip is ready: a slate that says what comes next, over the last clip's last frame."""

from __future__ import annotations

import numpy as np

from streaming import airing, picture


class Slate:
    """Drawn again only when its text or background changes (every few seconds at most), not every slot."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._background: picture.Frame | None = None
        self._key: tuple[object, ...] = ()
        self._picture: picture.Frame = np.zeros((height, width, 3), dtype=np.uint8)

    def over(self, background: picture.Frame) -> None:
        """A clip just ended: the slate shows its last frame, dimmed, from now on."""
        self._background = background
        self._key = ()

    def frame(self, upcoming: airing.Upcoming | None) -> picture.Frame:
        key = airing.slate_text(upcoming)
        if key != self._key:
            title, detail, progress = key
            self._picture = picture.slate(self.width, self.height, title, detail, progress, self._background)
            self._key = key
        return self._picture
