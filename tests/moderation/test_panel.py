"""The /mod/ page, its actions and its socket: staff only, CSRF-checked, viewer text escaped."""

import asyncio

import pytest
from channels.testing.websocket import WebsocketCommunicator
from django.test import Client

from yolive.asgi import application
from yolive.moderation.desk.consumers import FORBIDDEN_CLOSE_CODE
from yolive.plumbing import events
from yolive.voting import rounds, services
from yolive.voting.models import Prompt
from yolive.voting.services import held_event

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://127.0.0.1:8000")
SCRIPT = "<script>alert(1)</script>"


def test_a_viewer_is_sent_to_the_login_page_instead_of_the_panel(client):
    response = client.get("/mod/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_a_signed_in_non_staff_user_cannot_see_the_panel(client, outsider):
    client.force_login(outsider)
    assert client.get("/mod/").status_code == 302


def test_a_viewer_cannot_approve_a_prompt(client, outsider, held_prompt):
    client.force_login(outsider)
    response = client.post(f"/mod/prompts/{held_prompt.pk}/approve")
    assert response.status_code == 403
    assert Prompt.objects.get(pk=held_prompt.pk).status == "held"


def test_actions_need_the_csrf_token(moderator, held_prompt):
    client = Client(enforce_csrf_checks=True)
    client.force_login(moderator)
    assert client.post(f"/mod/prompts/{held_prompt.pk}/approve").status_code == 403
    page = client.get("/mod/")
    token = page.cookies["csrftoken"].value
    response = client.post(f"/mod/prompts/{held_prompt.pk}/approve", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200, response.content
    assert Prompt.objects.get(pk=held_prompt.pk).status == "approved"


def test_the_panel_lists_held_prompts_as_text_never_as_markup(client, moderator, held_prompt):
    client.force_login(moderator)
    html = client.get("/mod/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert SCRIPT not in html


def test_the_admin_shows_a_prompt_with_a_script_tag_as_text(client, moderator, held_prompt):
    moderator.is_superuser = True
    moderator.save()
    client.force_login(moderator)
    html = client.get("/admin/voting/prompt/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert SCRIPT not in html


def test_a_bad_action_answers_a_clear_error(client, moderator, held_prompt):
    client.force_login(moderator)
    response = client.post("/mod/restrictions", {"viewer_key": "nobody", "reason": "x", "duration": "60"})
    assert response.status_code == 400
    assert response.json() == {"error": "no viewer with that key"}
    response = client.post("/mod/restrictions", {"viewer_key": "x", "reason": "x", "duration": "soon"})
    assert response.status_code == 400


def test_a_moderator_adds_a_blocked_term_that_holds_the_next_submission(client, moderator):
    from yolive.moderation.policy import gate

    client.force_login(moderator)
    response = client.post("/mod/terms", {"term": "Zeppelin", "action": "hold"})
    assert response.status_code == 200
    assert gate.judge("a zeppelin over paris").decision == "hold"


async def test_the_mod_socket_refuses_anyone_who_is_not_staff():
    communicator = WebsocketCommunicator(application, "/ws/mod/", headers=[ORIGIN])
    connected, code = await communicator.connect()
    assert not connected
    assert code == FORBIDDEN_CLOSE_CODE


async def _staff_socket(user) -> WebsocketCommunicator:
    from asgiref.sync import sync_to_async

    client = Client()
    await sync_to_async(client.force_login)(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    return WebsocketCommunicator(application, "/ws/mod/", headers=[ORIGIN, (b"cookie", cookie)])


async def test_a_non_staff_session_is_refused_on_the_mod_socket(outsider):
    communicator = await _staff_socket(outsider)
    connected, code = await communicator.connect()
    assert not connected and code == FORBIDDEN_CLOSE_CODE


async def test_a_held_prompt_reaches_a_moderator_socket_live(moderator, held_prompt):
    communicator = await _staff_socket(moderator)
    connected, _ = await communicator.connect()
    assert connected
    await asyncio.sleep(0.2)
    from asgiref.sync import sync_to_async

    event = await sync_to_async(held_event)(held_prompt)
    await events.apublish(events.MODERATORS, event)
    frame = await communicator.receive_json_from(timeout=5)
    assert frame["type"] == "held"
    assert frame["prompt"]["text"] == held_prompt.text
    assert frame["prompt"]["author"]["key"] == held_prompt.author.key
    await communicator.disconnect()


async def test_a_submission_the_gate_holds_reaches_a_moderator_socket_live(moderator, viewer, open_round):
    from asgiref.sync import sync_to_async

    communicator = await _staff_socket(moderator)
    connected, _ = await communicator.connect()
    assert connected
    await asyncio.sleep(0.2)
    submitted = await sync_to_async(services.submit_prompt)(viewer, "sexy girl in bikini")
    assert submitted["status"] == "held"
    frame = await communicator.receive_json_from(timeout=5)
    assert frame["type"] == "held"
    assert (frame["prompt"]["id"], frame["prompt"]["author"]["key"]) == (submitted["id"], viewer.key)
    await communicator.disconnect()


async def test_a_moderator_socket_hears_each_round_and_clip_event_once(moderator):
    from asgiref.sync import sync_to_async

    communicator = await _staff_socket(moderator)
    connected, _ = await communicator.connect()
    assert connected
    await asyncio.sleep(0.2)

    def play_a_round() -> None:
        rnd = rounds.open_round(30)
        assert rnd is not None
        rounds.close_round(rnd)  # no votes: a house prompt wins and its clip is queued

    await sync_to_async(play_a_round)()
    heard = []
    while not await communicator.receive_nothing(timeout=1):
        heard.append((await communicator.receive_json_from())["type"])
    assert sorted(heard) == ["clip", "round_closed", "round_opened"]
    await communicator.disconnect()


async def test_the_mod_socket_refuses_a_foreign_origin(moderator):
    communicator = await _staff_socket(moderator)
    communicator.scope["headers"] = [(b"origin", b"http://evil.example"), communicator.scope["headers"][1]]
    connected, _ = await communicator.connect()
    assert not connected


async def test_the_mod_socket_also_hears_clip_news_published_to_viewers(moderator):
    communicator = await _staff_socket(moderator)
    connected, _ = await communicator.connect()
    assert connected
    await asyncio.sleep(0.2)
    clip = {"type": "clip", "clip_id": 4, "round_number": 3, "status": "rendering", "progress": 0.5}
    await events.apublish(events.VIEWERS, clip)
    assert await communicator.receive_json_from(timeout=5) == clip
    await communicator.disconnect()


def test_a_moderator_sets_a_categorys_level_and_it_is_audited_and_applied(client, moderator):
    from yolive.moderation.models import AuditLog
    from yolive.moderation.policy import gate

    client.force_login(moderator)
    assert gate.judge("a guy punching a man").decision == "hold"
    response = client.post("/mod/levels", {"category": "violence", "level": "1"})
    assert response.status_code == 200, response.content
    assert response.json() == {"ok": True, "category": "violence", "level": 1}
    assert gate.judge("a guy punching a man").decision == "allow"
    entry = AuditLog.objects.get(action="set_level")
    assert (entry.actor, entry.target, entry.detail) == (moderator, "violence", {"from": 3, "to": 1})
    page = client.get("/mod/").content.decode()
    assert 'id="level-violence"' in page and '<option value="1" selected>' in page


def test_a_bad_level_or_category_answers_a_clear_error_and_changes_nothing(client, moderator):
    from yolive.moderation.models import AuditLog, CategoryLevel

    client.force_login(moderator)
    response = client.post("/mod/levels", {"category": "violence", "level": "7"})
    assert response.status_code == 400 and "0 to 4" in response.json()["error"]
    response = client.post("/mod/levels", {"category": "gore", "level": "2"})
    assert response.status_code == 400 and "no category 'gore'" in response.json()["error"]
    assert not CategoryLevel.objects.exists() and not AuditLog.objects.exists()


def test_a_viewer_cannot_set_a_level(client, outsider):
    client.force_login(outsider)
    assert client.post("/mod/levels", {"category": "sexual", "level": "0"}).status_code == 403


def test_a_held_card_names_the_category_and_the_words_that_held_it(client, moderator, viewer, open_round):
    from yolive.moderation.policy import gate

    text = "sexy girl in bikini <b>"
    verdict = gate.judge(text)
    assert verdict.decision == "hold"
    prompt = Prompt.objects.create(
        text=text, normalized_text=verdict.normalized, author=viewer, round=open_round,
        status=Prompt.Status.HELD, moderation_reason=verdict.reason,
    )  # fmt: skip
    (finding,) = [f for f in held_event(prompt)["prompt"]["findings"] if f["category"] == "sexual"]
    assert finding["label"] == "sexual content" and {"sexy", "bikini"} <= set(finding["words"])
    client.force_login(moderator)
    html = client.get("/mod/").content.decode()
    assert '<li data-category="sexual"><strong>sexual content</strong>' in html
    assert "<mark>sexy</mark>" in html and "&lt;b&gt;" in html and "<b>" not in html.split("held-list", 1)[1]


def test_the_admin_cannot_change_the_words_of_a_prompt(client, moderator, held_prompt):
    moderator.is_superuser = True
    moderator.save()
    client.force_login(moderator)
    page = client.get(f"/admin/voting/prompt/{held_prompt.pk}/change/").content.decode()
    assert 'name="text"' not in page  # shown, not editable: it is what the gate judged and what airs
