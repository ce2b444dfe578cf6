"""The clip in the admin: its status is not editable there; only the lifecycle guards and announces it."""

import pytest
from django.utils import timezone

from yolive.clips.models import Clip
from yolive.voting.models import Prompt, Round

pytestmark = pytest.mark.django_db


def test_an_admin_edit_cannot_change_a_clips_status(admin_client):
    prompt = Prompt.objects.create(text="a red kite", normalized_text="a red kite", status="approved")
    now = timezone.now()
    clip = Clip.objects.create(round=Round.objects.create(number=1, opens_at=now, ends_at=now), prompt=prompt,
                               seed=1, preset="tiny")  # fmt: skip
    form = {
        "round": clip.round_id, "prompt": prompt.pk, "seed": 2, "preset": "tiny", "status": "aired",
        "progress": 1, "width": 0, "height": 0, "fps": 0, "num_frames": 0, "_save": "Save",
    }  # fmt: skip
    response = admin_client.post(f"/admin/clips/clip/{clip.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    clip.refresh_from_db()
    assert clip.seed == 2  # the edit went through
    assert (clip.status, clip.progress) == (Clip.Status.QUEUED, 0.0)  # but not to the status
