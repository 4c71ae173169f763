"""A small MCP server built on the official Python SDK, for the tests: a tool that answers with text
and an image, one that exits the process in the middle of a call, one that dies a moment after
answering, and one that echoes the environment variables it was started with. Run: python flaky_server.py [stdio | http PORT]."""
import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image

server = MCPServer("flaky")

# 1x1 transparent PNG
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082"
)


@server.tool()
def snapshot(label: str) -> list:
    """Describe a label and attach a picture of it."""
    return [f"snapshot of {label}", Image(data=PNG, format="png")]


@server.tool()
def crash() -> str:
    """Stop the server process at once, in the middle of the call."""
    sys.stderr.write("flaky: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def exit_soon() -> str:
    """Answer, then stop the server process a moment later (a server that dies between calls)."""
    import threading
    import time

    def leave() -> None:
        # A plain sleep, not threading.Timer: a timed lock wait goes wrong under a shifted clock
        # (libfaketime, the suite's second pass), a relative sleep does not.
        time.sleep(0.2)
        os._exit(4)

    threading.Thread(target=leave, daemon=True).start()
    return "leaving"


@server.tool()
def environment() -> str:
    """The names of the environment variables this server was started with."""
    return " ".join(sorted(os.environ))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
