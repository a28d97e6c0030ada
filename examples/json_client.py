"""Drive ``igpart serve --socket PATH`` from another process: one JSON request per line.

    igpart serve --socket /tmp/igpart.sock &
    python examples/json_client.py /tmp/igpart.sock design.hgr
"""

import json
import socket
import sys

if len(sys.argv) != 3:
    sys.exit("usage: python examples/json_client.py SOCKET DESIGN.hgr\n"
             "  (start the server first: igpart serve --socket SOCKET)")  # fmt: skip
path, design = sys.argv[1], sys.argv[2]
with socket.socket(socket.AF_UNIX) as sock, sock.makefile("rwb") as f:
    sock.connect(path)

    def call(method, params=None, rid=[0]):  # noqa: B006 (a counter)
        rid[0] += 1
        f.write(json.dumps({"id": rid[0], "method": method, "params": params or []}).encode())
        f.write(b"\n")
        f.flush()
        resp = json.loads(f.readline())
        if not resp["ok"]:
            raise SystemExit(f"{method}: {resp['error']['message']}")
        return resp["result"]

    call("read", [design])
    print("partition:", call("partition", {"k": 4})["cut"])
    call("insert_edge", [0, 1])
    print("refine:", call("refine")["changed"])
    print("block of vertex 0:", call("block_of", [0]))
    call("shutdown")
