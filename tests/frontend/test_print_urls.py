"""`make run` prints every address the README's table promises."""

import re
from io import StringIO

from django.core.management import call_command
from django.test import override_settings

from tests.helpers.processes import ROOT


def readme_urls() -> list[str]:
    table = (ROOT / "README.md").read_text().split("| what | URL |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"\| (http://127\.0\.0\.1:8000/\S*) \|", table)


@override_settings(PUBLIC_URL="http://127.0.0.1:8000")
def test_make_run_prints_every_url_the_readme_lists():
    out = StringIO()
    call_command("print_urls", stdout=out)
    printed = set(re.findall(r"http://\S+", out.getvalue()))
    assert len(readme_urls()) >= 7
    assert set(readme_urls()) <= printed
