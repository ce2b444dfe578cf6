"""Script calls from the event loop share one pipeline per turn: each caller still gets its own reply or
error, in the order of its own call, and a script Redis has not cached yet is loaded on the way."""

import asyncio
import uuid

import pytest
import redis

from yolive.voting.tally import arun_script


def echo_script() -> str:
    # A source Redis has never seen (a fresh comment), so the first EVALSHA of it fails with NOSCRIPT.
    return f"""-- {uuid.uuid4()}
if ARGV[1] == 'fail' then return redis.error_reply('asked to fail') end
return ARGV[1]"""


async def test_callers_in_one_turn_each_get_their_own_reply_from_a_script_not_yet_loaded():
    source = echo_script()

    replies = await asyncio.gather(*(arun_script(source, [], [f"caller {i}"]) for i in range(200)))

    assert replies == [f"caller {i}" for i in range(200)]


async def test_one_failing_call_fails_only_its_caller():
    source = echo_script()
    await arun_script(source, [], ["load it"])

    replies = await asyncio.gather(
        *(arun_script(source, [], ["fail" if i == 3 else str(i)]) for i in range(6)), return_exceptions=True
    )

    assert isinstance(replies[3], redis.ResponseError) and "asked to fail" in str(replies[3])
    assert [r for i, r in enumerate(replies) if i != 3] == ["0", "1", "2", "4", "5"]


async def test_a_caller_that_goes_away_does_not_disturb_the_others():
    source = echo_script()
    calls = [asyncio.ensure_future(arun_script(source, [], [str(i)])) for i in range(5)]
    calls[1].cancel()

    replies = await asyncio.gather(*calls, return_exceptions=True)

    assert isinstance(replies[1], asyncio.CancelledError)
    assert [r for i, r in enumerate(replies) if i != 1] == ["0", "2", "3", "4"]


async def test_a_redis_that_cannot_be_reached_fails_every_caller_quickly(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    with pytest.raises(redis.ConnectionError):
        async with asyncio.timeout(10):
            await asyncio.gather(*(arun_script(echo_script(), [], ["x"]) for _ in range(3)))
