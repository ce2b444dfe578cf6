import pytest

from streaming.playlist import write_atomically


@pytest.fixture
def hls_dir(settings, tmp_path):
    settings.HLS_DIR = tmp_path / "hls"
    (tmp_path / "hls" / "archive" / "7").mkdir(parents=True)
    write_atomically(tmp_path / "hls" / "live.m3u8", "#EXTM3U\n")
    (tmp_path / "hls" / "seg_00000001.ts").write_bytes(b"\x47" * 188)
    (tmp_path / "hls" / "archive" / "7" / "index.m3u8").write_text("#EXTM3U\n")
    (tmp_path / "hls" / ".live.m3u8.tmp").write_text("half")
    (tmp_path / "secret.txt").write_text("not for viewers")
    return tmp_path / "hls"


def test_the_live_playlist_is_served_as_a_playlist_cached_for_a_second(client, hls_dir):
    response = client.get("/hls/live.m3u8")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/vnd.apple.mpegurl"
    assert response["Cache-Control"] == "public, max-age=1"
    assert b"".join(response.streaming_content) == b"#EXTM3U\n"


def test_segments_are_mpeg_ts_and_cached_for_good(client, hls_dir):
    response = client.get("/hls/seg_00000001.ts")
    assert response.status_code == 200
    assert response["Content-Type"] == "video/mp2t"  # not text/vnd.trolltech.linguist
    assert "immutable" in response["Cache-Control"]
    assert "max-age=31536000" in response["Cache-Control"]


def test_any_origin_may_play_the_stream(client, hls_dir):
    response = client.get("/hls/live.m3u8", headers={"Origin": "https://elsewhere.example"})
    assert response["Access-Control-Allow-Origin"] == "*"
    preflight = client.options("/hls/seg_00000001.ts")
    assert preflight.status_code == 204
    assert "GET" in preflight["Access-Control-Allow-Methods"]
    assert preflight["Access-Control-Allow-Headers"] == "Range"


def test_an_archived_clip_is_served_from_its_folder(client, hls_dir):
    response = client.get("/hls/archive/7/index.m3u8")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/vnd.apple.mpegurl"


@pytest.mark.parametrize(
    "path",
    [
        "seg_00000099.ts",  # gone (or never made)
        "../secret.txt",
        "..%2Fsecret.txt",
        "archive/../../secret.txt",
        ".live.m3u8.tmp",  # a playlist half written
        "archive/7",
        "secret.txt",
        "%2Fetc%2Fpasswd",
    ],
)
def test_anything_but_a_stream_file_is_not_found(client, hls_dir, path):
    assert client.get(f"/hls/{path}").status_code == 404


def test_only_reading_is_allowed(client, hls_dir):
    assert client.post("/hls/live.m3u8").status_code == 405
