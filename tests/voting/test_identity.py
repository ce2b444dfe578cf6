import pytest
from channels.db import database_sync_to_async
from django.contrib.sessions.backends.db import SessionStore

from tests.helpers.voting import new_session
from yolive.voting.models import Viewer

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def stored_viewer_key(session_key: str) -> str | None:
    return SessionStore(session_key=session_key).get("viewer_key")


async def test_a_socket_without_a_session_still_gets_a_viewer_of_its_own(make_viewer):
    first, second = await make_viewer(), await make_viewer()

    assert first.key != second.key
    assert await database_sync_to_async(Viewer.objects.filter(key__in=[first.key, second.key]).count)() == 2
    assert first.snapshot["my_vote"] is None


async def test_a_socket_with_a_session_remembers_its_viewer_there(make_viewer):
    session = await new_session()
    cookie = [(b"cookie", f"sessionid={session.session_key}".encode())]

    first = await make_viewer(headers=cookie)
    again = await make_viewer(headers=cookie)

    assert await stored_viewer_key(session.session_key) == first.key
    assert again.key == first.key


async def test_the_snapshot_has_every_field_of_the_protocol(make_viewer, settings):
    viewer = await make_viewer()

    assert set(viewer.snapshot) == {
        "type", "server_time", "viewer", "round", "candidates", "my_vote", "my_prompts",
        "on_air", "rendering", "recent", "stand_in", "prompt_max_chars",
    }  # fmt: skip
    assert viewer.snapshot["server_time"].endswith("Z")
    assert viewer.snapshot["prompt_max_chars"] == settings.PROMPT_MAX_CHARS
    assert viewer.snapshot["stand_in"] is (settings.MODEL_PRESET == "tiny")
