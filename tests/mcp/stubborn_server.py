"""An MCP stdio server that is hard to stop, for the tests of Alisio ending its tool servers: it starts
a child process in its own process group, keeps running after its stdin closes, and with
--ignore-term ignores SIGTERM too. Every process it starts carries MARKER in its command line, so a
test can count what is left. Standard library only (JSON-RPC over newline-delimited stdio).

Run: python3 stubborn_server.py MARKER [--ignore-term] [--slow-start SECONDS] [--tools N]
Tools: `hello` (answers "hi"), `big {mib}` (answers MIB mebibytes of text), and with --tools N that
many more (`tool_0000` …) with long descriptions: a big catalog."""
import json
import signal
import subprocess
import sys
import time

marker = sys.argv[1]
args = sys.argv[2:]
if "--ignore-term" in args:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
slow = float(args[args.index("--slow-start") + 1]) if "--slow-start" in args else 0.0
extra = int(args[args.index("--tools") + 1]) if "--tools" in args else 0

# A child in the same process group, as servers that start helpers have.
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", marker])

TOOLS = [
    {"name": "hello", "description": "Say hi.", "inputSchema": {"type": "object", "properties": {}}},
    {
        "name": "big",
        "description": "Answer with this many MiB of text.",
        "inputSchema": {"type": "object", "properties": {"mib": {"type": "number"}}, "required": ["mib"]},
    },
] + [
    {
        "name": f"tool_{i:04}",
        "description": f"Tool number {i} of a large catalog: it looks up record {i} in the {marker} index. " * 4,
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "description": "record id"}}},
    }
    for i in range(extra)
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        continue
    if method == "initialize":
        time.sleep(slow)
        version = request.get("params", {}).get("protocolVersion", "2025-06-18")
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": version, "capabilities": {"tools": {}},
            "serverInfo": {"name": "stubborn", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        params = request.get("params", {})
        if params.get("name") == "big":
            text = "x" * int(float(params.get("arguments", {}).get("mib", 1)) * 1024 * 1024)
        else:
            text = "hi from " + params.get("name", "?")
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no such method"}})

# stdin closed: a polite server would exit here; this one stays.
while True:
    time.sleep(1)
