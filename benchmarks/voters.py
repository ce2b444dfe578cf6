"""A crowd on the viewer socket for `benchmarks.crowd`: viewers who write prompts and vote, as a crowd does.

Each viewer has a socket of its own. Every round a few of them write a prompt early on, and every one votes
once, at a moment drawn uniformly from the round, for a candidate drawn in proportion to how much the crowd
fancies it (a weight drawn once per candidate, shared by all). So the leader may change until the last
second, as it does when the crowd is split: what a head start that bets on the leader must live with.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime

from websockets.asyncio.client import ClientConnection, connect

# Short prompts of the kind viewers write, every one well inside the gate's approval.
PROMPTS = (
    "a red kite over the dunes at dawn",
    "a blue whale singing under the ice",
    "a paper boat sailing down a rainy street",
    "a lighthouse keeper climbing the stairs in a storm",
    "a fox trotting through fresh snow",
    "a train crossing a stone bridge in autumn",
    "an owl landing on a mossy branch at night",
    "a hot air balloon drifting over green hills",
    "a cat chasing fireflies in a garden",
    "a sailboat racing across a bright bay",
    "a steam locomotive in a snowy valley",
    "a bonfire on the beach under the stars",
)
WRITERS = 3  # viewers who write a prompt each round
WRITE_WITHIN = 0.3  # of the round: prompts come early, so the crowd has time to read them
VOTE_BETWEEN = (0.15, 0.97)  # of the round: when viewers vote


@dataclass
class Ballot:
    """The open round as the crowd sees it, shared by its viewers."""

    round_id: int | None = None
    opens: float = 0.0  # epoch seconds
    ends: float = 0.0
    fancy: dict[int, float] = field(default_factory=dict)  # candidate -> how much the crowd likes it


class Crowd:
    def __init__(self, url: str, viewers: int, seed: int = 1) -> None:
        self.url, self.viewers, self.random = url, viewers, random.Random(seed)
        self.ballot = Ballot()
        self.votes_cast = 0

    async def run(self, stop: asyncio.Event) -> None:
        async with contextlib.AsyncExitStack() as stack:
            sockets = [
                await stack.enter_async_context(connect(self.url, origin="http://127.0.0.1"))  # type: ignore[arg-type]
                for _ in range(self.viewers)
            ]
            tasks = [asyncio.create_task(self._listen(sockets[0]))]
            tasks += [asyncio.create_task(self._drain(s)) for s in sockets[1:]]
            tasks += [asyncio.create_task(self._viewer(i, s, stop)) for i, s in enumerate(sockets)]
            await stop.wait()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _listen(self, socket: ClientConnection) -> None:
        """One viewer's socket keeps the ballot: rounds and their candidates."""
        async for raw in socket:
            event = json.loads(raw)
            kind = event.get("type")
            if kind == "round_opened" and event["round"]["id"] != self.ballot.round_id:
                ends = datetime.fromisoformat(event["round"]["ends_at"].replace("Z", "+00:00"))
                self.ballot = Ballot(event["round"]["id"], datetime.now(UTC).timestamp(), ends.timestamp())
            elif kind == "candidate" and event["round_id"] == self.ballot.round_id:
                self.ballot.fancy.setdefault(event["prompt"]["id"], self.random.expovariate(1.0))

    async def _drain(self, socket: ClientConnection) -> None:
        async for _ in socket:  # every viewer hears the broadcast; the others' is not needed here
            pass

    async def _viewer(self, index: int, socket: ClientConnection, stop: asyncio.Event) -> None:
        done_round: int | None = None
        while not stop.is_set():
            ballot = self.ballot
            if ballot.round_id is None or ballot.round_id == done_round:
                await asyncio.sleep(0.1)
                continue
            done_round = ballot.round_id
            length = ballot.ends - ballot.opens
            if index < WRITERS:
                await self._at(ballot.opens + self.random.uniform(0, WRITE_WITHIN) * length)
                await socket.send(json.dumps({"type": "submit", "text": self.random.choice(PROMPTS)}))
            await self._at(ballot.opens + self.random.uniform(*VOTE_BETWEEN) * length)
            if ballot.fancy and self.ballot is ballot:
                ids = list(ballot.fancy)
                choice = self.random.choices(ids, weights=[ballot.fancy[i] for i in ids])[0]
                vote = {"type": "vote", "prompt_id": choice, "round_id": ballot.round_id}
                await socket.send(json.dumps(vote))
                self.votes_cast += 1

    @staticmethod
    async def _at(epoch_s: float) -> None:
        await asyncio.sleep(max(0.0, epoch_s - datetime.now(UTC).timestamp()))
