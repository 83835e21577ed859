#!/usr/bin/env python3
# A launcher that is not quite one, for the mpi tier's security check:
#   colldb -t mpi --mpirun 'python3 tests/mpi/stranger.py mpirun' ...
# Before it runs the real launcher (the rest of its arguments), it knocks
# on the shell's control port (COLLDB_SHELL) as strangers would: with a
# wrong token, with none, with bytes that are no attach at all, and with
# a connection it closes at once.  What the shell answered each is written
# to $STRANGER_LOG, one line each: "wrong-token refused", ...
# The layout it sends is core/remote.h's struct remote_attach (256 bytes,
# checked there) after a struct msg_hdr (core/proto.h).
import os
import socket
import struct
import sys

MSG_ATTACH, MSG_WELCOME, MSG_REFUSE = 6, 7, 8
REMOTE_MAGIC = 0x4D424443


def attach(token):
    body = struct.pack("<II5I33s3siiiI64s64s40sQ", REMOTE_MAGIC, 1,
                       0, 0, 0, 0, 0, token.encode(), b"", 0, 1, os.getpid(),
                       0, b"stranger", b"", b"", 0)
    assert len(body) == 256, len(body)
    return struct.pack("<IIIiII", MSG_ATTACH, 0, 0, 0, len(body), 0) + body


def knock(what, data):
    host, port = os.environ["COLLDB_SHELL"].rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=10)
    try:
        if data:
            s.sendall(data)
        else:
            s.shutdown(socket.SHUT_WR)
        hdr = b""
        while len(hdr) < 24:
            chunk = s.recv(24 - len(hdr))
            if not chunk:
                break
            hdr += chunk
        if len(hdr) < 24:
            verdict = "closed"
        else:
            typ = struct.unpack("<I", hdr[:4])[0]
            verdict = {MSG_REFUSE: "refused", MSG_WELCOME: "WELCOMED"}.get(typ, "other")
    except OSError as e:
        verdict = "error " + str(e)
    finally:
        s.close()
    with open(os.environ["STRANGER_LOG"], "a") as log:
        log.write(f"{what} {verdict}\n")


if "--version" in sys.argv:
    os.execvp(sys.argv[1], sys.argv[1:])
knock("wrong-token", attach("0" * 32))
knock("short-token", attach("1234"))
knock("no-token", attach(""))
knock("garbage", b"GET / HTTP/1.0\r\n\r\n" + b"x" * 300)
knock("hangup", b"")
os.execvp(sys.argv[1], sys.argv[1:])
