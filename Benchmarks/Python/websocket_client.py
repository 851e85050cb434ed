"""The reference client for the WebSocket benchmark: Python's `websockets` (with its C speedups), run the same way as
NetworkLayer's client against the same server, and reporting the same figures as one JSON line.

    python3 websocket_client.py echo URL COMPRESSED(0|1) SIZE COUNT WINDOW LATENCY_COUNT
    python3 websocket_client.py idle URL SOCKETS
"""
import asyncio
import json
import resource
import sys
import time

from websockets.asyncio.client import connect


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def payload(size):
    pattern = b'{"id":12345,"name":"Alice","tags":["swift","linux"],"score":0.75},'
    return (pattern * (size // len(pattern) + 1))[:size]


async def echo(url, compressed, size, count, window, latency_count):
    async with connect(url, max_size=None, compression="deflate" if compressed else None) as socket:
        message = payload(size)
        for _ in range(5):
            await socket.send(message)
            await socket.recv()
        started, cpu_started = time.perf_counter(), cpu()
        sent = 0
        while sent < min(window, count):
            await socket.send(message)
            sent += 1
        for _ in range(count):
            await socket.recv()
            if sent < count:
                await socket.send(message)
                sent += 1
        wall, cpu_used = time.perf_counter() - started, cpu() - cpu_started
        latencies = []
        for _ in range(latency_count):
            began = time.perf_counter()
            await socket.send(message)
            await socket.recv()
            latencies.append(time.perf_counter() - began)
        latencies.sort()
        print(json.dumps({
            "messagesPerSecond": count / wall,
            "cpuMicrosecondsPerMessage": cpu_used / count * 1e6,
            "medianMicroseconds": latencies[len(latencies) // 2] * 1e6,
            "p99Microseconds": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e6,
        }))


async def idle(url, count):
    def rss():
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    before = rss()
    sockets = [await connect(url, compression=None) for _ in range(count)]
    after = rss()
    for socket in sockets:
        await socket.close()
    print(json.dumps({"sockets": count, "rssGrowthKiB": after - before}))


if sys.argv[1] == "echo":
    asyncio.run(echo(sys.argv[2], sys.argv[3] == "1", *(int(value) for value in sys.argv[4:8])))
else:
    asyncio.run(idle(sys.argv[2], int(sys.argv[3])))
