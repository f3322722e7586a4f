#!/usr/bin/env python3
"""Server-sent event peers for Curlfire's event stream tests: sse-starlette 3.7.0 (PyPI) under
uvicorn (HTTP/1.1) and under Hypercorn (HTTP/2 over TLS, ALPN h2), both in the project venv.

On 127.0.0.1, ports 0. Prints {"http": P, "h2": P} as its first line ("h2" only with --cert and
--key: the test PKI's leaf). With --parent-pid it exits when that process does.

Routes (the same app on both servers):
  /feed?total=N&per=K&retry=MS   events id 1..N, type "tick", data {"n": i, "version": "HTTP/x"};
                                 each connection sends at most K of them, starting after the request's
                                 Last-Event-ID, then closes; once Last-Event-ID >= N it answers 204
                                 (stop). retry=MS sends a retry field with the first event.
  /ticks?interval=S              an endless stream: one "tick" event (id and data = its number) every S s
  /headers                       one event whose data is the request's headers as JSON, then closes
  /chat (POST)                   an OpenAI-style streamed chat completion: the JSON body's "reply"
                                 split at spaces, one chunk object per token, then "data: [DONE]"
  /firehose?mb=N&size=S          N MiB of events with S bytes of data each, as fast as the client
                                 reads (prebuilt blocks through Starlette's StreamingResponse)
  /not-a-stream                  200 with Content-Type application/json
"""
import argparse
import asyncio
import json
import os
import socket
import sys
import threading

from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config as HypercornConfig
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
import uvicorn


def last_event_id(request):
    try:
        return int(request.headers.get("last-event-id", "0"))
    except ValueError:
        return 0


async def feed(request):
    total = int(request.query_params.get("total", "6"))
    per = int(request.query_params.get("per", "3"))
    retry = request.query_params.get("retry")
    start = last_event_id(request)
    if start >= total:
        return Response(status_code=204)
    version = request.scope.get("http_version", "1.1")

    async def events():
        for n in range(start + 1, min(total, start + per) + 1):
            yield ServerSentEvent(id=str(n), event="tick", data=json.dumps({"n": n, "version": version}),
                                  retry=int(retry) if retry and n == start + 1 else None)

    return EventSourceResponse(events(), ping=15)


async def ticks(request):
    interval = float(request.query_params.get("interval", "0.1"))

    async def events():
        n = last_event_id(request)
        while True:
            n += 1
            yield ServerSentEvent(id=str(n), event="tick", data=str(n))
            await asyncio.sleep(interval)

    return EventSourceResponse(events(), ping=15)


async def headers(request):
    async def events():
        yield ServerSentEvent(data=json.dumps(dict(request.headers)))

    return EventSourceResponse(events(), ping=15)


async def chat(request):
    body = await request.json()
    tokens = str(body.get("reply", "")).split(" ")

    async def events():
        for index, token in enumerate(tokens):
            text = token if index == 0 else " " + token
            chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": body.get("model"),
                     "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
            yield ServerSentEvent(data=json.dumps(chunk))
            await asyncio.sleep(0.01)
        yield ServerSentEvent(data="[DONE]")

    return EventSourceResponse(events(), ping=15)


async def firehose(request):
    megabytes = int(request.query_params.get("mb", "100"))
    size = int(request.query_params.get("size", "1000"))
    event = b"event: chunk\ndata: " + b"x" * size + b"\n\n"
    block = event * max(1, (256 * 1024) // len(event))
    blocks = max(1, megabytes * 1024 * 1024 // len(block))

    async def body():
        for _ in range(blocks):
            yield block

    return StreamingResponse(body(), media_type="text/event-stream")


async def not_a_stream(request):
    return JSONResponse({"stream": False})


APP = Starlette(routes=[
    Route("/feed", feed), Route("/ticks", ticks), Route("/headers", headers), Route("/chat", chat, methods=["POST"]),
    Route("/firehose", firehose), Route("/not-a-stream", not_a_stream),
])


def listener():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def run(cert, key, http_sock, h2_sock):
    async def both():
        server = uvicorn.Server(uvicorn.Config(APP, log_config=None, log_level="warning", http="h11", lifespan="off"))
        tasks = [server.serve(sockets=[http_sock])]
        if h2_sock is not None:
            config = HypercornConfig()
            config.bind = [f"fd://{h2_sock.fileno()}"]
            config.certfile, config.keyfile = cert, key
            config.alpn_protocols = ["h2", "http/1.1"]
            config.loglevel = "WARNING"
            # A shutdown trigger that never fires: Hypercorn then installs no signal handlers (this
            # loop is not in the main thread); the process ends when its parent does.
            tasks.append(hypercorn_serve(APP, config, shutdown_trigger=asyncio.Event().wait))
        await asyncio.gather(*tasks)

    asyncio.run(both())


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parent_watch import announce_and_wait  # shared by the test servers in scripts/  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()
    http_sock = listener()
    h2_sock = listener() if args.cert and args.key else None
    ports = {"http": http_sock.getsockname()[1]}
    if h2_sock is not None:
        ports["h2"] = h2_sock.getsockname()[1]
    threading.Thread(target=run, args=(args.cert, args.key, http_sock, h2_sock), daemon=True).start()
    announce_and_wait(ports, args.parent_pid)


if __name__ == "__main__":
    main()
