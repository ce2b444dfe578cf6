"""Moderator actions against the real database and the real Redis channel layer."""

import asyncio

import pytest
from channels.layers import get_channel_layer

from yolive.clips.models import Clip
from yolive.moderation.desk import actions
from yolive.moderation.models import AuditLog
from yolive.moderation.policy import bans, gate, lockdown
from yolive.moderation.signals import prompt_approved
from yolive.plumbing import events
from yolive.voting import tally
from yolive.voting.models import Prompt, Round, Viewer

pytestmark = pytest.mark.django_db(transaction=True)


def at_close(prompt: Prompt) -> gate.Verdict:
    """The gate's re-check of a winner, given what the conductor passes it of the prompt."""
    return gate.judge_winner(
        prompt.text, prompt_id=prompt.pk, author_id=prompt.author_id, house=prompt.source == "house"
    )


class Listener:
    """Joins groups on the real channel layer and collects what is published to them."""

    def __init__(self, *groups):
        self.groups = groups
        self.layer = get_channel_layer()

    async def __aenter__(self):
        self.channel = await self.layer.new_channel()
        for group in self.groups:
            await self.layer.group_add(group, self.channel)
        await asyncio.sleep(0.2)  # pub/sub subscriptions are made asynchronously
        return self

    async def __aexit__(self, *exc):
        for group in self.groups:
            await self.layer.group_discard(group, self.channel)

    async def events(self, count, wait_s=5):
        got = []
        async with asyncio.timeout(wait_s):
            while len(got) < count:
                got.append((await self.layer.receive(self.channel))["event"])
        return got


def sync(fn, *args, **kwargs):
    from asgiref.sync import sync_to_async

    return sync_to_async(fn, thread_sensitive=False)(*args, **kwargs)


async def test_approving_a_held_prompt_tells_its_author_and_offers_it_to_viewers(held_prompt, moderator):
    received = []
    prompt_approved.connect(
        lambda sender, prompt, **kw: received.append(prompt.pk), weak=False, dispatch_uid="t"
    )
    try:
        async with Listener(events.viewer_group(held_prompt.author.key), events.VIEWERS) as listener:
            await sync(actions.approve_prompt, held_prompt.pk, moderator)
            got = await listener.events(2)
    finally:
        prompt_approved.disconnect(dispatch_uid="t")
    by_type = {e["type"]: e for e in got}
    assert by_type["prompt_status"] == {
        "type": "prompt_status",
        "prompt_id": held_prompt.pk,
        "status": "approved",
        "reason": "",
    }
    assert by_type["candidate"]["prompt"]["id"] == held_prompt.pk
    assert by_type["candidate"]["round_id"] == held_prompt.round_id
    assert received == [held_prompt.pk]
    _meta, ballot, _counts, _vote = await tally.read_round(held_prompt.round_id, "nobody")
    assert str(held_prompt.pk) in ballot  # the voting side put it on the Redis ballot: it can take votes


async def test_rejecting_a_held_prompt_sends_the_reason_to_its_author_only(held_prompt, moderator, viewer):
    other = await sync(Viewer.objects.create)
    author_group, other_group = events.viewer_group(viewer.key), events.viewer_group(other.key)
    async with Listener(author_group) as author, Listener(other_group) as o:
        await sync(actions.reject_prompt, held_prompt.pk, moderator, "not on this channel")
        (event,) = await author.events(1)
        with pytest.raises(TimeoutError):
            await o.events(1, wait_s=0.5)
    assert event["status"] == "rejected"
    assert event["reason"] == "not on this channel"


def test_a_prompt_is_decided_only_once(held_prompt, moderator):
    actions.approve_prompt(held_prompt.pk, moderator)
    with pytest.raises(actions.ActionError, match="already been decided"):
        actions.reject_prompt(held_prompt.pk, moderator)
    assert Prompt.objects.get(pk=held_prompt.pk).status == "approved"


def test_every_action_is_in_the_audit_log_with_its_moderator(held_prompt, moderator, viewer):
    actions.reject_prompt(held_prompt.pk, moderator, "spam")
    actions.restrict_viewer(viewer.key, moderator, "spamming", 600)
    actions.set_lockdown(True, moderator, "raid")
    logged = list(AuditLog.objects.order_by("id").values_list("actor__username", "action"))
    assert logged == [("mod", "reject_prompt"), ("mod", "timeout"), ("mod", "lockdown_on")]


def test_a_timeout_restricts_a_viewer_until_it_ends_or_is_lifted(viewer, moderator):
    assert bans.active_restriction(viewer.pk, viewer.last_ip) is None
    restriction = actions.restrict_viewer(viewer.key, moderator, "spamming", 600)
    found = bans.active_restriction(viewer.pk, viewer.last_ip)
    assert found is not None and found.reason == "spamming" and found.until is not None
    assert "timed out" in bans.restriction_message(found)
    actions.lift_restriction(restriction.pk, moderator)
    assert bans.active_restriction(viewer.pk, viewer.last_ip) is None


def test_a_ban_has_no_end_and_wins_over_a_timeout(viewer, moderator):
    actions.restrict_viewer(viewer.key, moderator, "short", 60)
    actions.restrict_viewer(viewer.key, moderator, "hate speech", None)
    found = bans.active_restriction(viewer.pk, viewer.last_ip)
    assert found.until is None and found.reason == "hate speech"


def test_a_restriction_needs_a_reason_and_a_sane_duration(viewer, moderator):
    with pytest.raises(actions.ActionError, match="reason"):
        actions.restrict_viewer(viewer.key, moderator, "  ", 60)
    with pytest.raises(actions.ActionError, match="two weeks"):
        actions.restrict_viewer(viewer.key, moderator, "spam", 10**9)
    with pytest.raises(actions.ActionError, match="no viewer"):
        actions.restrict_viewer("nobody", moderator, "spam", 60)


def test_lockdown_lets_only_approved_or_house_prompts_win(held_prompt, moderator, open_round):
    plain = Prompt.objects.create(text="a red kite", normalized_text="a red kite", status="approved")
    house = Prompt.objects.create(
        text="a quiet sea", normalized_text="a quiet sea", status="approved", source="house"
    )
    actions.approve_prompt(held_prompt.pk, moderator)
    held_prompt.refresh_from_db()
    assert at_close(plain).allowed
    actions.set_lockdown(True, moderator)
    assert lockdown.is_on()
    assert at_close(plain).decision == "hold"
    assert at_close(house).allowed
    assert at_close(held_prompt).allowed
    actions.set_lockdown(False, moderator)
    assert at_close(plain).allowed


def test_a_winner_whose_author_was_banned_meanwhile_does_not_air(viewer, moderator):
    prompt = Prompt.objects.create(text="a kite", normalized_text="a kite", status="approved", author=viewer)
    actions.restrict_viewer(viewer.key, moderator, "raid", None)
    assert at_close(prompt).decision == "reject"


def test_skip_flags_the_clip_on_air_before_the_one_rendering(moderator, open_round):
    from datetime import timedelta

    prompt = Prompt.objects.create(text="a kite", normalized_text="a kite", status="approved")
    start = open_round.opens_at - timedelta(seconds=10)
    older = Round.objects.create(number=0, opens_at=start, ends_at=open_round.opens_at, state="closed")
    rendering = Clip.objects.create(
        round=open_round, prompt=prompt, seed=1, preset="tiny", status="rendering"
    )
    on_air = Clip.objects.create(round=older, prompt=prompt, seed=2, preset="tiny", status="on_air")
    assert actions.skip_clip(moderator).pk == on_air.pk
    assert Clip.objects.get(pk=on_air.pk).skip_requested
    assert not Clip.objects.get(pk=rendering.pk).skip_requested
    Clip.objects.filter(pk=on_air.pk).update(status="aired")
    assert actions.skip_clip(moderator).pk == rendering.pk
    assert AuditLog.objects.filter(action="skip_clip").count() == 2


def test_skip_with_nothing_to_skip_is_a_clear_error(moderator):
    with pytest.raises(actions.ActionError, match="no clip"):
        actions.skip_clip(moderator)


def test_an_approval_stands_when_the_ballot_refuses_it_and_the_prompt_waits_for_the_next_round(
    held_prompt, moderator
):
    def refuse(sender, prompt, **kwargs):
        raise RuntimeError("ballot unavailable")

    prompt_approved.connect(refuse, weak=False, dispatch_uid="refuse")
    try:
        actions.approve_prompt(held_prompt.pk, moderator)
    finally:
        prompt_approved.disconnect(dispatch_uid="refuse")
    stored = Prompt.objects.get(pk=held_prompt.pk)
    assert stored.status == "approved"
    assert stored.round_id is None
