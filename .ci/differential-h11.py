#!/usr/bin/env python3
"""Differential run: CurlTransport's response-head rules (HeaderBlock) against h11, a reference HTTP/1.1 parser.

    .ci/differential-h11.py FUZZ_BINARY CORPUS_DIR...

FUZZ_BINARY is Fuzz's FuzzHeaderBlock target; with NETWORKLAYER_FUZZ_VERDICTS set it prints, for each input file it
is given, the input's FNV-1a hash and its verdict at the first complete head (`complete STATUS VERSION`, `refused
REASON` or `incomplete`). Each input is the fuzz target's format: a first byte whose low bit says whether the request
asked to switch protocols, then the head's bytes. h11 (from PyPI, never a dependency of the package) reads the same
bytes as the response to a GET (with `Upgrade: websocket` when the first byte asks for it).

Fails when HeaderBlock takes a head that h11 refuses, or ends a head elsewhere or with another status than h11: the
transport would then read as a response what a careful parser does not. HeaderBlock refusing what h11 takes is
expected (it is stricter: no `Content-Length` next to `Transfer-Encoding`, at most 5,000 fields, no `101` nobody asked
for) and only counted. Heads whose version has no minor digit (libcurl hands `HTTP/2` heads over too) are left
out: h11 reads `HTTP/d.d` only.
"""
import os
import subprocess
import sys

import h11


def fnv1a(data: bytes) -> str:
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return format(value, "x")


def h11_verdict(data: bytes):
    """("complete", status), ("refused", reason) or ("incomplete", None): h11's reading of the head."""
    asks = data[0] & 1 == 1
    connection = h11.Connection(h11.CLIENT)
    headers = [("Host", "example.test")]
    if asks:
        headers += [("Connection", "Upgrade"), ("Upgrade", "websocket")]
    connection.send(h11.Request(method="GET", target="/", headers=headers))
    connection.send(h11.EndOfMessage())
    try:
        connection.receive_data(data[1:])
        for _ in range(1000):
            event = connection.next_event()
            if event is h11.NEED_DATA:
                return ("incomplete", None)
            if isinstance(event, h11.InformationalResponse):
                if event.status_code == 101:
                    return ("complete", 101)
                continue
            if isinstance(event, h11.Response):
                return ("complete", event.status_code)
            return ("other", repr(event))
        return ("other", "no end")
    except h11.ProtocolError as error:
        return ("refused", str(error))


def our_verdicts(binary: str, files: list) -> dict:
    environment = dict(os.environ, NETWORKLAYER_FUZZ_VERDICTS="1")
    verdicts = {}
    for start in range(0, len(files), 400):
        batch = files[start : start + 400]
        run = subprocess.run(
            [binary, *batch], env=environment, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=600
        )
        if run.returncode != 0:
            sys.exit(f"differential: {binary} failed ({run.returncode}) on a batch starting with {batch[0]}")
        for line in run.stdout.decode("utf-8", "replace").splitlines():
            digest, _, verdict = line.partition(" ")
            verdicts[digest] = verdict
    return verdicts


def main() -> int:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary = sys.argv[1]
    files = sorted(
        os.path.join(directory, name)
        for directory in sys.argv[2:]
        for name in os.listdir(directory)
        if os.path.isfile(os.path.join(directory, name))
    )
    ours = our_verdicts(binary, files)
    compared = skipped = stricter = 0
    disagreements = []
    for path in files:
        with open(path, "rb") as file:
            data = file.read()
        if not data:
            continue
        verdict = ours.get(fnv1a(data))
        if verdict is None:
            disagreements.append((path, data, "no verdict from the target", ""))
            continue
        kind, _, rest = verdict.partition(" ")
        if kind == "complete":
            status, _, version = rest.partition(" ")
            if "." not in version:
                skipped += 1
                continue
        compared += 1
        reference = h11_verdict(data)
        if kind == "complete" and reference != ("complete", int(status)):
            disagreements.append((path, data, verdict, reference))
        elif kind == "refused" and reference[0] == "complete":
            stricter += 1
    print(
        f"differential: {compared} heads compared with h11 {h11.__version__}, {skipped} of other versions left out, "
        f"{stricter} refused here and taken by h11, {len(disagreements)} taken here and not by h11"
    )
    for path, data, verdict, reference in disagreements[:20]:
        print(f"  {os.path.basename(path)}: {data[:300]!r}\n    here: {verdict}\n    h11:  {reference}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
