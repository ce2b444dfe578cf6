import pytest

from tests.helpers.voting import close_round, open_round, submit, tick
from yolive.voting.consumers import MAX_FRAME_CHARS

pytestmark = pytest.mark.django_db(transaction=True)


async def test_every_kind_of_bad_frame_earns_an_error_and_changes_nothing(make_viewer, settings):
    old = await open_round()
    stale = await submit(await make_viewer(), "a lantern in the old round")
    await close_round(old)
    rnd = await open_round()
    alice = await make_viewer()
    kite = await submit(alice, "a red kite over the dunes")
    await alice.ask({"type": "vote", "prompt_id": kite["id"]})
    before = await tick(rnd.pk)

    bad = [
        ("not json", "bad_json"),
        ("[1, 2]", "invalid"),
        ('{"text": "no type"}', "unknown_type"),
        ('{"type": "dance"}', "unknown_type"),
        ('{"type": 7}', "unknown_type"),
        ("x" * (MAX_FRAME_CHARS + 1), "too_large"),
        ('{"type": "vote"}', "invalid"),
        ('{"type": "vote", "prompt_id": "12"}', "invalid"),
        ('{"type": "vote", "prompt_id": true}', "invalid"),
        ('{"type": "vote", "prompt_id": -3}', "invalid"),
        ('{"type": "vote", "prompt_id": 999999}', "unknown_prompt"),
        (f'{{"type": "vote", "prompt_id": {stale["id"]}}}', "wrong_round"),
        (f'{{"type": "vote", "prompt_id": {kite["id"]}, "round_id": {old.pk}}}', "round_closed"),
        ('{"type": "submit"}', "invalid"),
        ('{"type": "submit", "text": ["a", "list"]}', "invalid"),
        ('{"type": "submit", "text": "   \\u200b  "}', "empty"),
        ('{"type": "submit", "text": "' + "y" * (settings.PROMPT_MAX_CHARS + 1) + '"}', "too_long"),
        ('{"type": "submit", "text": "A red kite over the dunes"}', "rejected"),  # already a candidate
    ]
    for raw, code in bad:
        await alice.send_raw(raw)
        reply = await alice.until("error")
        assert reply["code"] == code, raw[:60]
        assert reply["message"]

    await alice.socket.send_to(bytes_data=b"\x00\x01")
    assert (await alice.until("error"))["code"] == "invalid"
    # The socket is still open and the ballot is as it was.
    assert (await alice.ask({"type": "resync"}, "snapshot"))["my_vote"] == kite["id"]
    await alice.ask({"type": "vote", "prompt_id": kite["id"]})
    assert (await tick(rnd.pk)) is None, "nothing changed, so no tally is due"
    assert before["counts"] == {str(kite["id"]): 1}


async def test_a_frame_when_no_round_is_open_says_the_round_is_closed(make_viewer):
    alice = await make_viewer()

    assert alice.snapshot["round"] is None
    assert (await alice.ask({"type": "vote", "prompt_id": 1}))["code"] == "round_closed"
    reply = await alice.ask({"type": "submit", "text": "a quiet harbour"}, ("submitted", "error"))
    assert reply["code"] == "round_closed"
    assert reply["retry_after"] == 1
