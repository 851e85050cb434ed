"""A WebSocket server for NetworkLayer's tests, on the reference implementation (the `websockets` package).

Listens on 127.0.0.1, port 0, twice: with permessage-deflate and without; and a third time as a hostile server that
breaks the protocol on purpose (raw asyncio, below); with `--cert CERT --key KEY` a fourth time over TLS (wss, with
permessage-deflate). Prints "PORTS <deflate> <plain> <hostile> <tls or 0>" once all listen, and runs until its standard
input closes (the test process ends) or it is killed. With `--ports DEFLATE PLAIN HOSTILE` it listens on those ports
instead (a server started again where a killed one was).

Paths:
  /echo                 every message back as it came (text as text, binary as binary)
  /fragments            for a text message "N:TEXT", TEXT back cut into N fragments
  /close/CODE           after the first message, closes with CODE and the reason "bye"
  /headers              sends the handshake's request headers as one text message, then echoes
  /reject               answers the handshake with 403 and the body "no"
  /auth                 answers 401 unless the handshake carries "Authorization: Bearer fresh", then echoes
  /feed                 a numbered feed that drops: waits for "resume:N", sends "N+1" to "N+3", then drops the
                        connection without a close frame (at N >= 9, closes with 1000 "done" instead)
  /ticker               waits for "resume:N", then sends "N+1" to "9" a message every 50 ms and closes with 1000;
                        after "3" it pauses for 60 s (a test kills the server there, whatever the machine's load)
  /watched              echoes, and once the connection has ended records how: the close code the client sent, or
                        "dropped" when it ended without one
  /closes               sends what /watched recorded, as one JSON text message (a list, oldest first)
  /drop-after/N         echoes N messages, then aborts its TCP connection (no close frame)
  /chat?run=ID          a chat server that fails the way servers do, counting the connections of each run ID: the
                        first echoes one message and closes with 1012 (restarting), the second echoes 7 messages and
                        aborts its TCP connection (no close frame), every later one echoes

The hostile server's paths, after a 101 with a right Sec-WebSocket-Accept unless the path says otherwise:
  /masked               sends a masked text frame (servers must not mask)
  /bad-accept           answers 101 with a Sec-WebSocket-Accept that is not the key's proof
  /silent               never answers the handshake
  /no-close-answer      reads and drops everything, never answering a close frame
  /flood                sends 64 KiB binary frames without end, as fast as the client takes them
  /deaf                 reads nothing after the handshake (for 60 s), so what the client sends fills the socket
  /subprotocol          chooses the last subprotocol the client offered (or "unasked" when it offered none), then
                        echoes one text message
"""
import asyncio
import base64
import hashlib
import http
import ssl
import json
import sys

from websockets.asyncio.server import serve


closes = []
chat_connections = {}


async def chat(connection, run):
    chat_connections[run] = chat_connections.get(run, 0) + 1
    number = chat_connections[run]
    echoed = 0
    async for message in connection:
        await connection.send(message)
        echoed += 1
        if number == 1:
            await connection.close(1012, "restarting")
            return
        if number == 2 and echoed == 7:
            connection.transport.abort()
            return


async def handler(connection):
    path = connection.request.path
    if path.startswith("/chat?run="):
        await chat(connection, path.split("=", 1)[1])
        return
    if path == "/watched":
        try:
            async for message in connection:
                await connection.send(message)
        finally:
            received = connection.protocol.close_rcvd
            closes.append(received.code if received else "dropped")
        return
    if path == "/closes":
        await connection.send(json.dumps(closes))
        return
    if path == "/headers":
        await connection.send(json.dumps({name.lower(): value for name, value in connection.request.headers.raw_items()}))
        path = "/echo"
    if path in ("/echo", "/auth"):
        async for message in connection:
            await connection.send(message)
    elif path == "/fragments":
        async for message in connection:
            count, _, text = message.partition(":")
            count = max(1, int(count))
            size = max(1, -(-len(text) // count))
            await connection.send([text[index:index + size] for index in range(0, len(text), size)] or [""])
    elif path == "/feed":
        resume = int((await connection.recv()).split(":", 1)[1])
        if resume >= 9:
            await connection.close(1000, "done")
            return
        for number in range(resume + 1, resume + 4):
            await connection.send(str(number))
        # A drop: the TCP connection ends after the messages, with no close frame.
        connection.transport.write_eof()
        await connection.wait_closed()
    elif path == "/ticker":
        resume = int((await connection.recv()).split(":", 1)[1])
        for number in range(resume + 1, 10):
            await connection.send(str(number))
            await asyncio.sleep(60 if number == 3 else 0.05)
        await connection.close(1000, "done")
    elif path.startswith("/drop-after/"):
        count = int(path.rsplit("/", 1)[1])
        echoed = 0
        async for message in connection:
            await connection.send(message)
            echoed += 1
            if echoed == count:
                connection.transport.abort()
                return
    elif path.startswith("/close/"):
        code = int(path.rsplit("/", 1)[1])
        await connection.recv()
        await connection.close(code, "bye")


def process_request(connection, request):
    if request.path == "/reject":
        return connection.respond(http.HTTPStatus.FORBIDDEN, "no")
    if request.path == "/auth" and request.headers.get("Authorization") != "Bearer fresh":
        return connection.respond(http.HTTPStatus.UNAUTHORIZED, "who are you?")
    return None


async def hostile(reader, writer):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    path = lines[0].split(" ")[1]
    key = next((line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("sec-websocket-key:")), "")
    accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
    if path == "/silent":
        await reader.read()
        return
    if path == "/bad-accept":
        accept = base64.b64encode(b"not the proof of that key")
    chosen = b""
    if path == "/subprotocol":
        offered = next((line.split(":", 1)[1] for line in lines if line.lower().startswith("sec-websocket-protocol:")), "")
        names = [name.strip() for name in offered.split(",") if name.strip()]
        chosen = b"Sec-WebSocket-Protocol: " + (names[-1] if names else "unasked").encode() + b"\r\n"
    writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: " + accept + b"\r\n" + chosen + b"\r\n")
    await writer.drain()
    if path == "/masked":
        writer.write(b"\x81\x81\x01\x02\x03\x04\x60")
        await writer.drain()
        await reader.read()
    elif path == "/subprotocol":
        # One unmasked text frame back: the payload of the client's first (masked, short) text frame.
        header = await reader.readexactly(2)
        length = header[1] & 0x7F
        mask = await reader.readexactly(4)
        data = bytes(byte ^ mask[index % 4] for index, byte in enumerate(await reader.readexactly(length)))
        writer.write(bytes([0x81, len(data)]) + data)
        await writer.drain()
        await reader.read()
    elif path == "/deaf":
        await asyncio.sleep(60)
    elif path == "/no-close-answer":
        while await reader.read(65536):
            pass
    elif path == "/flood":
        frame = b"\x82\x7f" + (65536).to_bytes(8, "big") + b"\xab" * 65536
        try:
            while True:
                writer.write(frame)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
    writer.close()


async def main():
    limits = dict(max_size=64 * 1024 * 1024, max_queue=64)
    wanted = [0, 0, 0]
    if "--ports" in sys.argv:
        start = sys.argv.index("--ports") + 1
        wanted = [int(port) for port in sys.argv[start:start + 3]]
    async with serve(handler, "127.0.0.1", wanted[0], process_request=process_request, **limits) as deflate, serve(
        handler, "127.0.0.1", wanted[1], process_request=process_request, compression=None, **limits
    ) as plain:
        raw = await asyncio.start_server(hostile, "127.0.0.1", wanted[2])
        ports = [next(iter(server.sockets)).getsockname()[1] for server in (deflate, plain, raw)]
        secure = None
        if "--cert" in sys.argv:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[sys.argv.index("--cert") + 1], sys.argv[sys.argv.index("--key") + 1])
            secure = await serve(handler, "127.0.0.1", 0, ssl=context, process_request=process_request, **limits)
        tls_port = next(iter(secure.sockets)).getsockname()[1] if secure else 0
        print(f"PORTS {ports[0]} {ports[1]} {ports[2]} {tls_port}", flush=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, sys.stdin.read)
        if secure:
            secure.close()


asyncio.run(main())
