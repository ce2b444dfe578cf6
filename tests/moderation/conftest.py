import pytest
from django.contrib.auth import get_user_model

from yolive.voting.models import Prompt, Round, Viewer


@pytest.fixture
def moderator(db):
    return get_user_model().objects.create_user("mod", password="pw-for-tests", is_staff=True)


@pytest.fixture
def outsider(db):
    """A signed-in user who is not staff."""
    return get_user_model().objects.create_user("someone", password="pw-for-tests")


@pytest.fixture
def viewer(db):
    return Viewer.objects.create()


@pytest.fixture
def open_round(db) -> Round:
    """A round opened by the voting side, in the database and on the Redis ballot."""
    from yolive.voting.rounds import open_round

    rnd = open_round(30)
    assert rnd is not None
    return rnd


@pytest.fixture
def held_prompt(viewer, open_round):
    text = "a nude statue <script>alert(1)</script>"
    return Prompt.objects.create(
        text=text,
        normalized_text=text,
        author=viewer,
        round=open_round,
        status=Prompt.Status.HELD,
        moderation_reason='held for a moderator to review: contains "nude"',
    )
