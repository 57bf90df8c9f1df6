#!/usr/bin/env python3
"""bench/delayproxy.py: a TCP relay on 127.0.0.1 that holds each chunk of the server's answers DELAY_MS
before passing it on (requests go through at once): a store some way off, for the latency side of
case 10 (BENCHMARKS.md, "Publishing a mirror to S3"). Not a bench case: run by hand against the
case's fixture.

usage: delayproxy.py LISTEN_PORT TARGET_PORT DELAY_MS
"""
import asyncio
import sys


async def pipe(reader, writer, delay):
    try:
        while True:
            chunk = await reader.read(1 << 20)
            if not chunk:
                break
            if delay:
                await asyncio.sleep(delay)
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def main(listen, target, delay):
    async def handle(cr, cw):
        sr, sw = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(pipe(cr, sw, 0), pipe(sr, cw, delay))

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]) / 1000))
