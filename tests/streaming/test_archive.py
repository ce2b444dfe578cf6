import os
import time

import m3u8
import numpy as np
from PIL import Image

from streaming import archive


def live_segments(hls_dir, names):  # type: ignore[no-untyped-def]
    hls_dir.mkdir(parents=True, exist_ok=True)
    for name in names:
        (hls_dir / name).write_bytes(name.encode() * 100)
    return [(name, 2.0) for name in names]


def test_an_archived_clip_keeps_its_segments_after_the_live_window_deletes_them(tmp_path):
    parts = live_segments(tmp_path, ["seg_00000010.ts", "seg_00000011.ts"])
    path = archive.archive_clip(tmp_path, 42, parts)
    assert path == "archive/42/index.m3u8"
    for name, _ in parts:
        (tmp_path / name).unlink()  # the live window moved on
    folder = tmp_path / "archive" / "42"
    assert (folder / "seg_00000010.ts").read_bytes() == b"seg_00000010.ts" * 100
    playlist = m3u8.loads((tmp_path / path).read_text())
    assert [s.uri for s in playlist.segments] == ["seg_00000010.ts", "seg_00000011.ts"]
    assert playlist.is_endlist
    assert not list((tmp_path / "archive").glob(".*"))  # no staging folder left behind


def test_archiving_a_clip_again_replaces_its_folder(tmp_path):
    archive.archive_clip(tmp_path, 7, live_segments(tmp_path, ["seg_00000001.ts", "seg_00000002.ts"]))
    archive.archive_clip(tmp_path, 7, live_segments(tmp_path, ["seg_00000003.ts"]))
    assert sorted(p.name for p in (tmp_path / "archive" / "7").iterdir()) == ["index.m3u8", "seg_00000003.ts"]


def test_retention_removes_archives_older_than_the_setting_and_keeps_the_rest(tmp_path):
    archive.archive_clip(tmp_path, 1, live_segments(tmp_path, ["seg_00000001.ts"]))
    archive.archive_clip(tmp_path, 2, live_segments(tmp_path, ["seg_00000002.ts"]))
    old = time.time() - 5 * 3600
    os.utime(tmp_path / "archive" / "1", (old, old))
    assert archive.sweep(tmp_path, retention_hours=4) == [1]
    assert not (tmp_path / "archive" / "1").exists()
    assert (tmp_path / "archive" / "2" / "index.m3u8").exists()
    assert archive.sweep(tmp_path, retention_hours=4) == []


def test_a_sweep_without_an_archive_does_nothing(tmp_path):
    assert archive.sweep(tmp_path / "nothing", retention_hours=1) == []


def test_the_archive_keeps_a_poster_taken_from_the_clip(tmp_path):
    frame = np.zeros((288, 512, 3), dtype=np.uint8)
    frame[:, :256] = (200, 40, 40)  # left half red, right half black: survives JPEG
    archive.archive_clip(tmp_path, 9, live_segments(tmp_path, ["seg_00000001.ts"]), poster=frame)
    poster = tmp_path / archive.poster_path(9)
    with Image.open(poster) as image:
        assert image.format == "JPEG" and image.size == (512, 288)
        pixels = np.asarray(image.convert("RGB"), dtype=np.int16)
    assert np.abs(pixels - frame).mean() < 4
