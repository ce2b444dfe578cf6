"""The viewer page as HTTP: it gives every visitor a session and a Viewer before any socket opens."""

import pytest

from yolive.voting.models import Viewer

pytestmark = pytest.mark.django_db


def test_the_page_creates_a_viewer_and_remembers_it_in_the_session(client):
    response = client.get("/")
    assert response.status_code == 200
    key = client.session["viewer_key"]
    assert Viewer.objects.filter(key=key).exists()
    assert "sessionid" in response.cookies


def test_a_returning_visitor_keeps_the_same_viewer(client):
    client.get("/")
    first = client.session["viewer_key"]
    client.get("/")
    assert client.session["viewer_key"] == first
    assert Viewer.objects.count() == 1


def test_a_session_pointing_at_a_deleted_viewer_gets_a_new_one(client):
    client.get("/")
    Viewer.objects.all().delete()
    client.get("/")
    assert Viewer.objects.filter(key=client.session["viewer_key"]).exists()


def test_the_page_has_the_player_the_prompt_box_and_labels(client):
    html = client.get("/").content.decode()
    assert "/static/vendor/hls/hls.min.js" in html
    assert '<label for="prompt-text">' in html
    assert 'id="video"' in html and "muted" in html


def test_the_page_loads_its_scripts_and_hls_js_from_static_files(client):
    for path in ("/static/vendor/hls/hls.min.js", "/static/frontend/viewer.js", "/static/frontend/site.css"):
        response = client.get(path)
        assert response.status_code == 200, path
