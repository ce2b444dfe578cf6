"""Script calls from the event loop share one pipeline per turn: each caller still gets its own reply or
error, in the order of its own call, and a script Redis has not cached yet is loaded on the way.

No database: these run among the suite's last tests, beside the browser tests' event loop, so each drives
a loop of its own (in_own_loop)."""

import asyncio
import uuid

import redis

from tests.helpers.processes import in_own_loop
from yolive.voting.tally import arun_script


def echo_script() -> str:
    # A source Redis has never seen (a fresh comment), so the first EVALSHA of it fails with NOSCRIPT.
    return f"""-- {uuid.uuid4()}
if ARGV[1] == 'fail' then return redis.error_reply('asked to fail') end
return ARGV[1]"""


async def gather(*calls, return_exceptions=False):  # type: ignore[no-untyped-def]
    return await asyncio.gather(*calls, return_exceptions=return_exceptions)


def test_callers_in_one_turn_each_get_their_own_reply_from_a_script_not_yet_loaded():
    source = echo_script()

    replies = in_own_loop(gather(*(arun_script(source, [], [f"caller {i}"]) for i in range(200))))

    assert replies == [f"caller {i}" for i in range(200)]


def test_one_failing_call_fails_only_its_caller():
    source = echo_script()
    in_own_loop(arun_script(source, [], ["load it"]))

    replies = in_own_loop(
        gather(
            *(arun_script(source, [], ["fail" if i == 3 else str(i)]) for i in range(6)),
            return_exceptions=True,
        )
    )

    assert isinstance(replies[3], redis.ResponseError) and "asked to fail" in str(replies[3])
    assert [r for i, r in enumerate(replies) if i != 3] == ["0", "1", "2", "4", "5"]


def test_a_caller_that_goes_away_does_not_disturb_the_others():
    source = echo_script()

    async def one_leaves() -> list:
        calls = [asyncio.ensure_future(arun_script(source, [], [str(i)])) for i in range(5)]
        calls[1].cancel()
        return await asyncio.gather(*calls, return_exceptions=True)

    replies = in_own_loop(one_leaves())

    assert isinstance(replies[1], asyncio.CancelledError)
    assert [r for i, r in enumerate(replies) if i != 1] == ["0", "2", "3", "4"]


def test_a_redis_that_cannot_be_reached_fails_every_caller_quickly(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1

    async def calls() -> list:
        async with asyncio.timeout(10):
            return await gather(
                *(arun_script(echo_script(), [], ["x"]) for _ in range(3)), return_exceptions=True
            )

    assert all(isinstance(r, redis.ConnectionError) for r in in_own_loop(calls()))
