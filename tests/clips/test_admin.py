"""The clip in the admin: its status is not editable there; only the lifecycle guards and announces it."""

from pathlib import Path

import pytest

from tests.helpers.streaming import make_clip
from yolive.clips.models import Clip

pytestmark = pytest.mark.django_db


def test_an_admin_edit_cannot_change_a_clips_status(admin_client):
    clip = make_clip(Path(), 1, status=Clip.Status.QUEUED)
    form = {
        "round": clip.round_id, "prompt": clip.prompt_id, "seed": 2, "preset": "tiny", "status": "aired",
        "progress": 1, "width": 0, "height": 0, "fps": 0, "num_frames": 0, "_save": "Save",
    }  # fmt: skip
    response = admin_client.post(f"/admin/clips/clip/{clip.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    clip.refresh_from_db()
    assert clip.seed == 2  # the edit went through
    assert (clip.status, clip.progress) == (Clip.Status.QUEUED, 0.0)  # but not to the status
