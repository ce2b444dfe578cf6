from pathlib import Path

import pytest

from streaming.command import EncoderSpec, build_command, choose_encoder

SPEC = EncoderSpec(width=512, height=288, fps=24, segment_seconds=2)


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def build(spec: EncoderSpec = SPEC, **kwargs) -> list[str]:  # type: ignore[no-untyped-def]
    options = {
        "segment_dir": Path("/srv/hls"),
        "private_playlist": Path("/srv/work/ffmpeg.m3u8"),
        "start_number": 0,
    }
    return build_command(spec, **{**options, **kwargs})


def test_it_reads_raw_rgb_frames_of_the_stream_size_from_stdin():
    command = build()
    assert command[0] == "ffmpeg"
    input_at = command.index("-i")
    assert command[input_at + 1] == "pipe:0"
    before_input = command[:input_at]
    assert option(before_input, "-f") == "rawvideo"
    assert option(before_input, "-pix_fmt") == "rgb24"
    assert option(before_input, "-s") == "512x288"
    assert option(before_input, "-framerate") == "24"


def test_it_puts_a_keyframe_on_every_segment_boundary_and_nowhere_else():
    command = build()
    assert option(command, "-g") == "48"
    assert option(command, "-keyint_min") == "48"
    assert option(command, "-sc_threshold") == "0"
    assert option(command, "-bf") == "0"
    assert option(command, "-force_key_frames") == "expr:gte(t,n_forced*2)"
    assert option(command, "-hls_time") == "2"


def test_a_longer_segment_or_other_rate_changes_the_group_of_pictures():
    command = build(EncoderSpec(768, 512, 30, 4))
    assert option(command, "-g") == "120"
    assert option(command, "-s") == "768x512"
    assert option(command, "-force_key_frames") == "expr:gte(t,n_forced*4)"


def test_it_writes_browser_playable_h264_with_libx264_by_default():
    command = build()
    output_options = command[command.index("pipe:0") :]
    assert option(output_options, "-vcodec") == "libx264"
    assert option(output_options, "-pix_fmt") == "yuv420p"
    assert option(output_options, "-profile:v") == "high"
    assert option(output_options, "-tune") == "zerolatency"


def test_it_names_segments_from_the_playlists_next_sequence_and_continues_timestamps():
    command = build(start_number=1234, ts_offset=2468.0)
    assert option(command, "-start_number") == "1234"
    assert option(command, "-output_ts_offset") == "2468.000000"
    assert option(command, "-hls_segment_filename") == "/srv/hls/seg_%08d.ts"
    assert command[-1] == "/srv/work/ffmpeg.m3u8"
    assert option(command[command.index("pipe:0") :], "-f") == "hls"


def test_global_options_come_before_the_first_input():
    command = build()
    assert command.index("-loglevel") < command.index("-i")
    assert command.index("-nostats") < command.index("-i")


def test_nvenc_gets_its_own_options():
    command = build(EncoderSpec(512, 288, 24, 2, encoder="h264_nvenc"))
    assert option(command, "-vcodec") == "h264_nvenc"
    assert option(command, "-forced-idr") == "1"
    assert "-sc_threshold" not in command
    assert "zerolatency" not in command


def test_a_negative_start_number_is_refused():
    with pytest.raises(ValueError, match="start_number"):
        build(start_number=-1)


def test_an_encoder_that_does_not_work_here_falls_back_to_libx264():
    assert choose_encoder("no_such_encoder") == "libx264"
    assert choose_encoder("libx264") == "libx264"
