"""An MCP server exposing poimen's check and register as tools (`pip install poimen[mcp]`,
then `poimen mcp`): for an agent whose memory is an MCP server of its own, which calls these
before it stores and when it injects. It speaks stdio and reaches poimen's API with
POIMEN_URL and POIMEN_TOKEN (POIMEN_ON_ERROR: allow, the default, or raise; POIMEN_TIMEOUT
seconds, default 5)."""

import contextlib
import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from poimen.adapters.records import INJECTED_KIND, injected_name
from poimen.agent.client import CheckResult, Client, PoimenError

INSTRUCTIONS = (
    "poimen keeps a memory from learning from its own output. Before storing text as a "
    "memory, call check and store only the results whose keep is true, as their text_to_keep. "
    "When memories are injected into a prompt, call register_injected with that block, so "
    "that a later transcript restating it is caught."
)


class RecordIn(BaseModel):
    id: str = Field(description="the record's id in the memory; a resend with it adds nothing")
    text: str
    role: str | None = None
    session: str | None = None


class Checked(BaseModel):
    id: str | None
    status: str | None = Field(
        description="evidence, redacted, excluded, or unchecked (poimen could not answer)"
    )
    keep: bool = Field(description="whether to store the record")
    text_to_keep: str = Field(description="what to store: a redacted record's evidence text")
    shadow: bool = Field(description="decided in shadow mode: kept whatever the status says")
    matched: list[str] = Field(description="the artifacts it copies, kind/name, best first")
    error: str | None = None


class Registered(BaseModel):
    registered: bool = Field(description="false: poimen could not be reached")
    kind: str
    name: str
    created: bool = Field(False, description="false: the same text was registered before")


def _checked(result: CheckResult) -> Checked:
    return Checked(
        id=None if result.id is None else str(result.id),
        status=result.status,
        keep=result.keep,
        text_to_keep=result.text_to_keep,
        shadow=result.shadow,
        matched=[f"{m.kind}/{m.name}" for m in result.matches],
        error=result.error,
    )


@contextlib.contextmanager
def _failed_closed(what: str):
    """A guard that fails closed (on_error="raise") answers the agent a tool error that says
    why and what not to do, not the SDK's bare "Error executing tool"."""
    try:
        yield
    except PoimenError as error:
        raise ToolError(f"poimen could not {what} ({error}): {_UNCHECKED_ADVICE[what]}") from None


_UNCHECKED_ADVICE = {
    "check": "store none of these records until poimen answers (POIMEN_ON_ERROR=raise)",
    "register": "the text is not registered; call again when poimen answers",
}


def server(guard: Client, *, source: str = "mcp") -> MCPServer:
    """The MCP server, its tools speaking to poimen through `guard`."""
    app = MCPServer("poimen", instructions=INSTRUCTIONS)

    @app.tool()
    def check(records: list[RecordIn], store: bool = True) -> list[Checked]:
        """Check records before storing them as memories: each answered in order with
        whether to keep it and what text to keep."""
        sent = [{**record.model_dump(exclude_none=True), "source": source} for record in records]
        with _failed_closed("check"):
            return [_checked(result) for result in guard.check(sent, store=store)]

    def registered(kind: str, name: str, text: str) -> Registered:
        with _failed_closed("register"):
            artifact = guard.register(kind, name, text)
        return Registered(
            registered=artifact is not None,
            kind=kind,
            name=name,
            created=bool(artifact and artifact.created),
        )

    @app.tool()
    def register(kind: str, name: str, text: str) -> Registered:
        """Register an artifact the agent emitted (a skill it wrote, a file it loads)."""
        return registered(kind, name, text)

    @app.tool()
    def register_injected(block: str) -> Registered:
        """Register the block of memories injected into a prompt, so that a transcript
        restating it is caught."""
        return registered(INJECTED_KIND, injected_name(source, block), block)

    return app


def main(argv: list[str] | None = None) -> None:
    """`poimen mcp`: the server on stdio."""
    url, token = os.environ.get("POIMEN_URL"), os.environ.get("POIMEN_TOKEN")
    if not url or not token:
        sys.exit("poimen mcp: set POIMEN_URL and POIMEN_TOKEN (docs/adapters.md)")
    guard = Client(
        url,
        token,
        timeout=float(os.environ.get("POIMEN_TIMEOUT", "5")),
        on_error=os.environ.get("POIMEN_ON_ERROR", "allow"),
    )
    server(guard, source=os.environ.get("POIMEN_SOURCE", "mcp")).run("stdio")
