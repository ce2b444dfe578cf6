import re
from pathlib import Path

import pytest
from django.utils import timezone

from frontend import clip_pages
from tests.helpers.streaming import make_clip
from yolive.clips.models import Clip
from yolive.voting.models import Prompt, Round
from yolive.voting.services import prompt_view

pytestmark = pytest.mark.django_db


def aired_clip(number: int, text: str = "", status: str = Clip.Status.AIRED, archived: bool = True) -> Clip:
    clip = make_clip(
        Path(), number, status=status, text=text or f"a lighthouse keeper finds a map, part {number}"
    )
    Prompt.objects.filter(id=clip.prompt_id).update(status=Prompt.Status.AIRED)
    Round.objects.filter(id=clip.round_id).update(tallies={str(clip.prompt_id): 3, "999": 2}, total_votes=5)
    archive = f"archive/{number}/index.m3u8" if archived else ""
    Clip.objects.filter(id=clip.id).update(
        width=512, height=288, aired_at=timezone.now(), archive_path=archive
    )
    clip.refresh_from_db()
    return clip


def meta(html: str, key: str) -> str:
    found = re.search(rf'<meta (?:property|name)="{re.escape(key)}" content="([^"]*)"', html)
    assert found, f"no {key} meta tag"
    return found.group(1)


def test_an_aired_clip_has_a_page_with_its_prompt_round_votes_replay_and_share_tags(client, settings):
    settings.PUBLIC_URL = "https://yolive.example"
    clip = aired_clip(7)

    response = client.get(f"/clips/{clip.id}/")

    html = response.content.decode()
    assert response.status_code == 200
    assert clip.prompt.text in html and 'id="clip-round">7<' in html and "3 of 5" in html
    assert 'data-replay="/hls/archive/7/index.m3u8"' in html
    assert meta(html, "og:url") == f"https://yolive.example/clips/{clip.id}/"
    assert meta(html, "og:image") == f"https://yolive.example/hls/archive/{clip.id}/poster.jpg"
    assert meta(html, "og:title") == f"Round 7: {clip.prompt.text}"
    assert meta(html, "twitter:card") == "summary_large_image"
    assert meta(html, "twitter:image") == meta(html, "og:image")
    assert f'value="https://yolive.example/clips/{clip.id}/"' in html  # the share box


def test_a_prompt_is_escaped_in_the_page_and_its_tags(client):
    clip = aired_clip(8, text='a "quoted" <script>alert(1)</script> scene')
    html = client.get(f"/clips/{clip.id}/").content.decode()
    assert "<script>alert(1)" not in html
    escaped = "a &quot;quoted&quot; &lt;script&gt;alert(1)&lt;/script&gt; scene"
    assert meta(html, "og:title") == f"Round 8: {escaped}"


@pytest.mark.parametrize("status", [Clip.Status.FAILED, Clip.Status.SKIPPED, Clip.Status.QUEUED])
def test_a_clip_viewers_never_saw_has_no_page(client, status):
    clip = aired_clip(9, status=status)
    assert client.get(f"/clips/{clip.id}/").status_code == 404


def test_once_its_replay_is_past_retention_the_page_says_so_and_shares_no_poster(client):
    clip = aired_clip(10, archived=False)
    html = client.get(f"/clips/{clip.id}/").content.decode()
    assert "no longer kept" in html and "og:image" not in html
    assert meta(html, "twitter:card") == "summary"


def test_the_archive_lists_kept_clips_newest_first_with_their_posters(client):
    kept = [aired_clip(n) for n in (11, 12, 13)]
    gone = aired_clip(14, archived=False)
    cut = aired_clip(15, status=Clip.Status.SKIPPED)

    html = client.get("/clips/").content.decode()

    links = re.findall(r'<a href="/clips/(\d+)/">', html)
    assert links == [str(c.id) for c in reversed(kept)]
    assert str(gone.id) not in links and str(cut.id) not in links
    for clip in kept:
        assert f'src="/hls/archive/{clip.id}/poster.jpg"' in html


def test_the_archive_is_paged(client, monkeypatch):
    monkeypatch.setattr(clip_pages, "ARCHIVE_PAGE_SIZE", 2)
    clips = [aired_clip(n) for n in (21, 22, 23)]
    first = client.get("/clips/").content.decode()
    second = client.get("/clips/?page=2").content.decode()
    assert re.findall(r'<a href="/clips/(\d+)/">', first) == [str(clips[2].id), str(clips[1].id)]
    assert re.findall(r'<a href="/clips/(\d+)/">', second) == [str(clips[0].id)]
    assert 'href="?page=2">Older' in first and 'href="?page=1">Newer' in second


def test_an_authors_aired_prompt_links_to_its_clip_page():
    clip = aired_clip(30)
    assert prompt_view(clip.prompt)["clip_url"] == f"/clips/{clip.id}/"
