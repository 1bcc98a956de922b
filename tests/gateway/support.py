"""Shared by the gateway's tests of the local and the Redis limiter."""

import asyncio

from gateway.async_slots import aslot


def end_in_one_turn(limiter, calls: int = 4, settle: float = 0.01) -> int:
    """`calls` calls of model "m" (its limit `calls`) hold their slots at once, then all end
    in one turn of the loop, and the loop turns once more (where the slots go back). Returns
    how many slots the limiter counted in flight while they were held."""
    held = []

    async def call(go):
        async with aslot(limiter, "m", calls, None, lease=10):
            await go.wait()

    async def main():
        go = asyncio.Event()
        tasks = [asyncio.create_task(call(go)) for _ in range(calls)]
        await asyncio.sleep(settle)
        held.append(limiter.in_flight("m"))
        go.set()
        await asyncio.gather(*tasks)
        await asyncio.sleep(0)

    asyncio.run(main())
    return held[0]
