from PIL import Image

from benchmarks.charts import DPI, PANEL_IN, Panel, draw


def test_a_chart_of_bars_and_lines_is_written_as_a_png_of_the_documented_size(tmp_path):
    path = draw(
        tmp_path / "charts" / "bench.png",
        "a run of 2 levels",
        [
            Panel("votes", ["100", "200"], {"offered": [100, 200], "accepted": [99, 180]}, "votes/s"),
            Panel("delay", [100, 200], {"p50": [30, 60], "p99": [80, 400]}, "ms", kind="line"),
        ],
    )
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size == (2 * PANEL_IN[0] * DPI, PANEL_IN[1] * DPI)
        # Something was drawn: more than the white background and a few shades of text.
        assert len(image.convert("RGB").getcolors(maxcolors=100_000) or []) > 20
