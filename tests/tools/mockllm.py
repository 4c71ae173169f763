#!/usr/bin/env python3
"""Scripted model server (OpenAI Chat Completions + Responses, Anthropic Messages, Gemini API, Augment chat-stream)
used to RECORD the agent CLIs of tests/fixtures/agents/ and tests/fixtures/compat/ offline. It replaces the
per-agent copies that lived in <fixture>/tools/mockllm.py: what differed between them is now a VARIANT.

Usage: mockllm.py [--variant NAME] PORT LOGFILE          (standard library only; NAME defaults to "base")
Every request body is appended to LOGFILE as one JSON line {"path", "body"}.
Env:
  SUMMARY_MAX   max_tokens value that marks a summarizer request (default 1234)
  SUMMARY_MODE  json | text | trunc-json | trunc-empty | error   (default json)
  CTX           context_length reported by GET /models (default 0 = not reported)
  K0            first request number - 1 (ids stay unique when the server is restarted into the same log)
  BIG_TOKENS    the cached prefix a SAYBIG prompt pretends (Messages API, default 90000)

The shared script (variant "base"), POST /v1/chat/completions, by the request:
  * max_tokens/max_completion_tokens == SUMMARY_MAX  -> summarizer answer per SUMMARY_MODE
  * last message is a tool result                      -> text "ack <tool_call_id>"
  * last user message starts with "DO <tool> <json>"   -> one tool call (ids have odd characters: call_<k>-Zq.9/x)
  * last user message starts with "SAY <text>"         -> that text
  * "THINK DO ..." / "THINK SAY ..."                    -> also streams reasoning_content first
  * "DO a {json} ;; DO b {json}"                       -> each tool result answered with the next step, then "ack"
  * the prompt may be one text part among <system-reminder> parts, or the last line after a preamble
  * a request mentioning <state_snapshot> (Qwen Code) -> "<analysis>..</analysis>\n<state_snapshot>..."
  * anything else                                      -> summarizer answer (per SUMMARY_MODE)
usage.prompt_tokens_details.cached_tokens simulates a prefix KV cache (longest common prefix, /4, of the
canonical JSON of the messages with the previous request). The Responses API (/responses), the Anthropic
Messages API (/messages, /messages/count_tokens) and the Gemini API (models/<m>:generateContent,
:streamGenerateContent?alt=sse, :countTokens; GEMINI_CALL_IDS=1 adds ids to function calls; a response JSON
schema gets an object filled from it) run the same script. Every GET path is printed to stderr.

Variants: tests/tools/mockllm/<NAME>.json holds what one agent's recording needed, as data:
  "description"   one line
  "features"      behaviours switched on, each a branch of this file guarded by F("<feature>"):
      reminder_strip     (copilot-cli) strip a trailing "<reminder>...</reminder>" before looking for the prompt
      aider              (aider) prompt = first line of the last user text; "EDIT {path,search,replace[,content]}"
                         answered in the edit format Aider's system prompt asks for (SEARCH/REPLACE, diff-fenced,
                         whole, udiff); "I added these files to the chat" repeats the last EDIT
      openclaw           (openclaw) trailing "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>" user messages ignored; prompt
                         "[<date>] DO ..." in the newest user message; compaction requests ("exact section
                         headings:" / "This is the PREFIX of a turn") get the "## " headings with the checkpoint;
                         env OVERFLOW_AT=N refuses a tools request over N tokens with HTTP 400 context_length_exceeded
      cline_steps        (cline-tasks) "STEPS a ;; b" lines answered step by step (per assistant message after
                         it; "CALL <name> <json>" = native tool call); Cline's condense / summarize_task /
                         condense_response / "continued from a previous conversation" messages get fixed answers
      roo                (roo) "<user_message>" prompts stepped per assistant tool call (or "[Tool Use: "), Roo's
                         condense request restates the pending steps; env PTOK_WITH_TOOLS=1 counts "tools" in
                         prompt_tokens, CACHE_READ_FIELD=1 adds cache_read/creation_input_tokens to usage
      responses_v2       (codex, droid, auggie) Responses API: reasoning items for THINK, the prompt is the last
                         DO/SAY/THINK part or line of the last user item, ";;" steps, custom (freeform) tool calls,
                         local_shell_call_output answered with "ack"
      model_ids          (codex) GET /models also lists the ids in env MODEL_IDS (comma-separated)
      summary_tag_wrap   (droid, auggie) a summarizer request asking for "<summary>" tags gets them
      messages_script    (claude-code, amp) Messages API script language: " ;; " steps (counted per assistant
                         turn), " && " parts DO/SAY/SAYBIG/THINK/PAUSE <s> as content blocks of one response,
                         <command-contents> scripts, side requests (Warmup, isNewTopic, policy_spec, titles),
                         /compact summaries, prompt-cache usage over the last 40 requests (CACHE1H=0 turns the 1h
                         split off), a request-id header, BLOCK_DELAY between streamed blocks (default 0.3 s),
                         REPLY_LOG=<file> logs the answers
      forced_tool        (amp, droid, auggie) tool_choice {"type":"tool","name":N} -> that tool, its input filled
                         from the variant's "forced_tool" {"title", "string", "typed"}
      amp_service        (amp) every non-model POST path is logged to LOGFILE.side and answered 200
                         (/api/internal JSON-RPC: getUserInfo, getCreditsByRequestId 0.0123; others {})
      augment_api        (droid, auggie) the Augment API: POST /chat-stream (newline-delimited JSON nodes: text,
                         thinking, tool use, token_usage, billing_metadata; "OVERFLOW <script>" first answers
                         summarize_and_retry), /get-models = env AUG_MODELS (404 unset), AUG_MAX_CTX,
                         AMP_CREDITS; other non-model paths logged to LOGFILE.side and answered 200 {}
      gemini_scratchpad  (gemini-cli) a compression request mentioning "scratchpad" gets <scratchpad> first
                         (NO_SCRATCHPAD=1 turns it off)
  "chat_rules"    chat completions: fixed answers to an agent's side requests (titles, compaction), tried in
                  order after the SUMMARY_MAX check: {"match", "needle", "answer"}, match = system_contains |
                  system_startswith | system_user_contains | title_request (no tools, a user message starting
                  with needle); in answer "{checkpoint}" = the MARKER checkpoint JSON, "{prompt2}" = the prompt's
                  first two words (hermes, kimi, kilo, aider)
  "gemini_title"  {"needle", "answer"}: a Gemini request whose user text holds needle gets answer (gemini-cli)
  "forced_tool"   see the feature of that name
Variants: base, qwen-code (= base), copilot-cli, gemini-cli, hermes, kilo, kimi, aider, openclaw, cline-tasks,
roo, codex, claude-code, amp, droid, auggie (= droid).

To add a variant: copy base.json to tests/tools/mockllm/<agent>.json and put the agent's fixed answers in
"chat_rules" (or "gemini_title"); only when the agent needs a new behaviour, add a branch guarded by
F("<feature>") here (leave the other variants' paths untouched), list the feature in the JSON and above, then run
tests/tools/check_mockllm.py (it replays each recorded agent's requests against its variant and the previous
server, which it takes from git, and must stay "all identical").
"""
import argparse, json, os, re, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_ap = argparse.ArgumentParser(description="scripted model server (see the docstring)")
_ap.add_argument("--variant", default="base", help="name of tests/tools/mockllm/<variant>.json (default: base)")
_ap.add_argument("port", type=int)
_ap.add_argument("logfile")
_args = _ap.parse_args()
PORT, LOG = _args.port, _args.logfile
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mockllm", _args.variant + ".json")) as _f:
    VARIANT = json.load(_f)
FEATURES = set(VARIANT.get("features", []))


def F(name):
    """is this behaviour switched on by the variant?"""
    return name in FEATURES


SUMMARY_MAX = int(os.environ.get("SUMMARY_MAX", "1234"))
SUMMARY_MODE = os.environ.get("SUMMARY_MODE", "json")
CTX = int(os.environ.get("CTX", "0"))
OVERFLOW_AT = int(os.environ.get("OVERFLOW_AT", "0")) if F("openclaw") else 0
PROMPT_RE = re.compile(r"\A(?:\[[^\]\n]*\]\s*)?((?:THINK |DO |SAY |SAYBIG )[^\n]*)")
lock = threading.Lock()
AUG_OVERFLOWED = set()  # (conversation_id, prompt) already answered with summarize_and_retry
state = {"prev": "", "n": int(os.environ.get("K0", "0"))}

CHECKPOINT = {
    "goal": "MARKER-GOAL finish the parser",
    "instructions": ["MARKER-INSTR keep tests green"],
    "discoveries": ["MARKER-DISC the lexer is slow"],
    "accomplished": ["wrote lexer"],
    "currentState": "MARKER-STATE halfway",
    "nextSteps": ["MARKER-NEXT write parser"],
    "relevantFiles": ["src/lexer.rs"],
}


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def summary_answer():
    if SUMMARY_MODE == "json":
        return json.dumps(CHECKPOINT), "stop"
    if SUMMARY_MODE == "text":
        return "MARKER-TEXT plain summary of the work so far", "stop"
    if SUMMARY_MODE == "trunc-json":
        s = json.dumps(CHECKPOINT)
        return s[: len(s) // 2], "length"
    if SUMMARY_MODE == "trunc-empty":
        return "", "length"
    return None, None



def openclaw_summary(prompt):
    conv = prompt.split("<conversation>", 1)[-1].split("</conversation>", 1)[0].strip()
    tail = prompt.split("</conversation>", 1)[-1]
    heads = [l.strip() for l in tail.splitlines() if re.match(r"^## \S", l.strip())]
    out = []
    for i, h in enumerate(heads or ["## Summary"]):
        out.append(h)
        if i == 0:
            out.append("MARKER-OPENCLAW-SUMMARY " + (summary_answer()[0] or ""))
        elif h == "## Exact identifiers" or i == len(heads) - 1:
            out.append("Conversation, verbatim:\n" + conv)
        else:
            out.append("None.")
        out.append("")
    return "\n".join(out).strip()


ROO_SUMMARY_SYS = "You are a helpful AI assistant tasked with summarizing conversations"
ROO_UM = re.compile(r"<user_message>\n(.*?)\n</user_message>", re.S)


def roo_script(msgs):
    """Roo Code: (kind, payload) for the next scripted step, or None when this is not a Roo request."""
    sys0 = text_of(msgs[0].get("content", "")) if msgs and msgs[0].get("role") == "system" else ""
    idx, prompt = None, None
    for j in range(len(msgs) - 1, -1, -1):
        m = msgs[j]
        if m.get("role") not in ("user", "tool"):
            continue
        hits = [h.strip() for h in ROO_UM.findall(text_of(m.get("content", "")))]
        hits = [h for h in hits if h.startswith(("DO ", "SAY ", "THINK "))]
        if hits:
            idx, prompt = j, hits[-1]
            break
    think = False
    steps = []
    done = 0
    if prompt is not None:
        if prompt.startswith("THINK "):
            think, prompt = True, prompt[6:].strip()
        steps = prompt.split(" ;; ")
        for m in msgs[idx + 1:]:
            if m.get("role") == "assistant":
                done += len(m.get("tool_calls") or [])
                done += text_of(m.get("content", "")).count("[Tool Use: ")
    if sys0.startswith(ROO_SUMMARY_SYS):
        rest = steps[done:]
        txt = ("MARKER-ROO-SUMMARY 1. Previous Conversation: the user ran scripted steps. "
               "2. Current Work: MARKER-STATE halfway. 3. Pending Tasks and Next Steps:")
        if rest:
            txt += "\n<user_message>\n" + " ;; ".join(rest) + "\n</user_message>"
        else:
            txt += " none"
        return ("summary", txt, False)
    if prompt is None:
        return None
    if done < len(steps):
        st = steps[done]
        if st.startswith("DO "):
            _, name, args = st.split(" ", 2)
            return ("tool", (name, args), think and done == 0)
        if st.startswith("SAY "):
            return ("text", st[4:], think and done == 0)
    return ("ack", None, False)


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, code, obj):
        b = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_GET(self):
        sys.stderr.write("GET " + self.path + "\n"); sys.stderr.flush()
        if self.path.rstrip("/").endswith("/models"):
            m = {"id": "mock", "object": "model", "owned_by": "mock"}
            if CTX:
                m["context_length"] = CTX
                m["max_model_len"] = CTX
            extra = []
            if F("model_ids"):  # codex: GET /models also lists the ids in env MODEL_IDS (comma-separated)
                extra = [{"id": x, "object": "model", "owned_by": "mock"}
                         for x in os.environ.get("MODEL_IDS", "").split(",") if x]
            return self.send_json(200, {"object": "list", "data": [m] + extra})
        self.send_json(404, {"error": {"message": "not found"}})

    def do_POST(self):
        n = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw)
        except Exception:
            return self.send_json(400, {"error": {"message": "bad json"}})
        p0 = self.path.split("?")[0].rstrip("/")
        if F("augment_api") and not (
                p0 == "/chat-stream" or p0.endswith(("/chat/completions", "/responses", "/messages", "/count_tokens"))
                or ":generateContent" in p0 or ":streamGenerateContent" in p0 or ":countTokens" in p0):
            return self.service(p0, body)
        if F("amp_service") and not p0.endswith(("/messages", "/count_tokens", "/chat/completions", "/responses")):
            return self.service(p0, body)
        if F("augment_api") and p0 == "/chat-stream":
            canon_src = [body.get("tool_definitions"), body.get("rules"), body.get("chat_history"), body.get("message"),
                         body.get("nodes")]
        else:
            canon_src = None
        with lock:
            state["n"] += 1
            k = state["n"]
            with open(LOG, "a") as f:
                f.write(json.dumps({"path": self.path, "body": body}) + "\n")
            canon = json.dumps(canon_src if canon_src is not None else body.get("messages", body.get("input", body.get("contents", []))), sort_keys=True)
            if self.path.split("?")[0].rstrip("/").endswith("/count_tokens"):
                canon_keep = False
            else:
                canon_keep = True
            prev = state["prev"]
            i = 0
            lim = min(len(prev), len(canon))
            while i < lim and prev[i] == canon[i]:
                i += 1
            if canon_keep:
                state["prev"] = canon
        if F("augment_api") and p0 == "/chat-stream":
            return self.do_augment(body, k, i, canon)
        if self.path.rstrip("/").split("?")[0].endswith("/responses"):
            return self.do_responses(body, k, i, canon)
        gp = self.path.split("?")[0]
        if ":countTokens" in gp:
            return self.send_json(200, {"totalTokens": len(canon) // 4})
        if ":generateContent" in gp or ":streamGenerateContent" in gp:
            return self.do_gemini(body, k, i, canon, ":streamGenerateContent" in gp)
        if self.path.split("?")[0].rstrip("/").endswith("/messages/count_tokens"):
            return self.send_json(200, {"input_tokens": len(canon) // 4})
        if self.path.split("?")[0].rstrip("/").endswith("/messages"):
            return self.do_messages(body, k, i, canon)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            return self.send_json(404, {"error": {"message": "only chat/completions here"}})
        if OVERFLOW_AT and body.get("tools") and len(canon) // 4 > OVERFLOW_AT:
            # openclaw: refuse an oversized agent request the way OpenAI does, so that the agent's
            # overflow recovery (compact, then retry) runs; summarizer requests (no tools) are never refused
            n_ = len(canon) // 4
            return self.send_json(400, {"error": {
                "message": "This model's maximum context length is %d tokens. However, your messages resulted in "
                           "%d tokens. Please reduce the length of the messages." % (OVERFLOW_AT, n_),
                "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
        msgs = body.get("messages", [])
        if F("openclaw"):
            # openclaw: a user message of injected context ("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") follows the
            # prompt and every tool result; it is not the user's turn, so the script looks at what precedes it
            while (len(msgs) > 1 and msgs[-1].get("role") == "user"
                   and text_of(msgs[-1].get("content", "")).lstrip().startswith("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>")):
                msgs = msgs[:-1]
        maxt = body.get("max_tokens", body.get("max_completion_tokens"))
        last = msgs[-1] if msgs else {}
        last_user = next((m for m in reversed(msgs) if m.get("role") == "user"), {})
        lu = text_of(last_user.get("content", "")).strip()
        if F("reminder_strip"):
            # copilot-cli: Copilot CLI 1.0.12 appends "<reminder>...</reminder>" after the prompt
            lu = re.sub(r"\s*<reminder>.*?</reminder>\s*$", "", lu, flags=re.S).strip()
        c_ = last_user.get("content")
        if isinstance(c_, list):  # the prompt may be one text part among <system-reminder> parts
            for p_ in reversed(c_):
                t_ = (p_.get("text", "") if isinstance(p_, dict) else "").strip()
                if t_.startswith(("DO ", "SAY ", "THINK ", "SAYBIG ")):
                    lu = t_; break
        if F("openclaw") and not lu.startswith(("DO ", "SAY ", "THINK ", "SAYBIG ")):
            # openclaw: the prompt is "[Thu 2026-12-03 08:14 UTC] DO ...\n\nRuntime: ..." in an earlier
            # user message, followed by a user message of injected context; take the newest user message that
            # has such a line (and treat it as the turn's user message for the ";;" step count)
            for m_ in reversed(msgs):
                if m_.get("role") != "user":
                    continue
                g_ = PROMPT_RE.search(text_of(m_.get("content", "")))
                if g_:
                    lu, last_user = g_.group(1).strip(), m_
                    break
        if not lu.startswith(("DO ", "SAY ", "THINK ", "SAYBIG ")):
            # the prompt may follow a preamble inside one string (Copilot CLI: <current_datetime>...)
            m_ = re.search(r"(?:^|\n)((?:THINK |DO |SAY |SAYBIG )[^\n]*)\s*$", lu)
            if m_:
                lu = m_.group(1).strip()
        if F("aider"):
            # aider: the prompt is the first line of the last user text (a reminder follows it)
            first_line = text_of(last_user.get("content", "")).strip().split("\n", 1)[0].strip()
            if first_line.startswith(("EDIT ", "SAY ", "THINK ")):
                lu = first_line
            elif first_line.startswith("I added these files to the chat"):
                # Aider's reflection after it added a file the reply named: answer the last EDIT prompt again
                for m_ in reversed(msgs):
                    fl_ = text_of(m_.get("content", "")).strip().split("\n", 1)[0].strip()
                    if m_.get("role") == "user" and fl_.startswith("EDIT "):
                        lu = fl_; break
        think = None
        if lu.startswith("THINK "):  # "THINK DO ..." / "THINK SAY ..." also streams reasoning
            lu = lu[6:].strip()
            if last.get("role") == "user":
                think = f"MARKER-THINK pondering request {k}"
        if F("cline_steps"):
            if self.cline_steps(body, msgs, last, k, i, canon):
                return
        tool_call, text, finish = None, None, "stop"
        last_text = text_of(last.get("content", "")) if last.get("role") == "user" else ""
        sys0 = text_of(msgs[0].get("content", "")) if msgs and msgs[0].get("role") == "system" else ""
        rule = self.chat_rule(body, msgs, sys0, lu)
        roo = roo_script(msgs) if F("roo") else None
        if roo:
            think = f"MARKER-THINK pondering request {k}" if roo[2] else None
        if roo and roo[0] == "tool":
            tool_call = {"id": f"call_{k}-Zq.9/x", "type": "function",
                         "function": {"name": roo[1][0], "arguments": roo[1][1]}}
            finish = "tool_calls"
        elif roo and roo[0] in ("summary", "text"):
            text = roo[1]
        elif roo and roo[0] == "ack":
            text = "ack " + str(last.get("tool_call_id"))
        elif maxt == SUMMARY_MAX:
            text, finish = summary_answer()
        elif rule is not None:  # the variant's "chat_rules" (data): side requests with fixed answers
            text = rule
        elif F("aider") and last.get("role") in ("user", "system") and lu.startswith("EDIT "):
            text = self.aider_edit(json.loads(lu[5:]), sys0, "\n".join(text_of(m_.get("content", "")) for m_ in msgs))
        elif F("openclaw") and last.get("role") == "user" and ("exact section headings:" in last_text
                                                              or "This is the PREFIX of a turn" in last_text):
            # openclaw: its compaction summarizer asks for fixed "## " headings and audits the answer
            # (every heading present, the latest ask reflected, every opaque identifier of the conversation kept
            # literally); answer with those headings, the MARKER checkpoint, and the conversation quoted whole
            text = openclaw_summary(last_text)
        elif (("<state_snapshot>" in last_text or (msgs and msgs[0].get("role") == "system"
                                                   and "<state_snapshot>" in text_of(msgs[0].get("content", ""))))
              and not (last.get("role") == "user" and lu.startswith(("DO ", "SAY ", "SAYBIG ")))):
            # a summarizer that asks for <analysis> + <state_snapshot> XML (Qwen Code) gets it
            text = ("<analysis>MARKER-ANALYSIS</analysis>\n<state_snapshot>\n" + (summary_answer()[0] or "")
                    + "\n</state_snapshot>")
        elif last.get("role") == "tool" and " ;; " in lu:
            # "DO a {..} ;; DO b {..}" runs the steps one after another in the same turn
            steps = lu.split(" ;; ")
            li = max(i_ for i_, m_ in enumerate(msgs) if m_ is last_user)
            done = sum(len(m_.get("tool_calls") or []) for m_ in msgs[li:] if m_.get("role") == "assistant")
            if done < len(steps) and steps[done].startswith("DO "):
                _, name, args = steps[done].split(" ", 2)
                tool_call = {"id": f"call_{k}-Zq.9/x", "type": "function",
                             "function": {"name": name, "arguments": args}}
                finish = "tool_calls"
            else:
                text = "ack " + str(last.get("tool_call_id"))
        elif last.get("role") == "tool":
            text = "ack " + str(last.get("tool_call_id"))
        elif last.get("role") == "user" and lu.startswith("DO "):
            _, name, args = lu.split(" ;; ")[0].split(" ", 2)
            tool_call = {"id": f"call_{k}-Zq.9/x", "type": "function",
                         "function": {"name": name, "arguments": args}}
            finish = "tool_calls"
        elif last.get("role") == "user" and lu.startswith("SAY "):
            text = lu[4:]
        else:
            text, finish = summary_answer()
            if F("summary_tag_wrap") and text and "<summary>" in last_text:
                # droid: "wrap your final summary in <summary> tags"
                text = "<summary>MARKER-SUMMARY " + text + "</summary>"
        if text is None and tool_call is None:
            return self.send_json(500, {"error": {"message": "mock failure"}})
        ptok = len(canon) // 4
        if F("roo") and os.environ.get("PTOK_WITH_TOOLS"):  # roo: count the tool definitions too (Roo counts them)
            ptok = (len(canon) + len(json.dumps(body.get("tools") or [], sort_keys=True))) // 4
        usage = {"prompt_tokens": ptok, "completion_tokens": len(text or "") // 4 + 1,
                 "total_tokens": ptok + len(text or "") // 4 + 1,
                 "prompt_tokens_details": {"cached_tokens": i // 4}}
        if F("roo") and os.environ.get("CACHE_READ_FIELD"):  # roo: Roo reads these (Anthropic-style) fields
            usage["cache_read_input_tokens"] = i // 4
            usage["cache_creation_input_tokens"] = 0
        if think:
            usage["completion_tokens_details"] = {"reasoning_tokens": len(think) // 4}
            usage["completion_tokens"] += len(think) // 4
            usage["total_tokens"] += len(think) // 4
        msg = {"role": "assistant", "content": text}
        if think:
            msg["reasoning_content"] = think
        if tool_call:
            msg["tool_calls"] = [tool_call]
        if not body.get("stream"):
            return self.send_json(200, {"id": f"chatcmpl-{k}", "object": "chat.completion",
                                        "created": int(time.time()), "model": "mock",
                                        "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
                                        "usage": usage})
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()

        def ev(obj):
            self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")
            self.wfile.flush()

        base = {"id": f"chatcmpl-{k}", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": "mock"}
        ev({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
        if think:
            for j in range(0, len(think), 9):
                ev({**base, "choices": [{"index": 0, "delta": {"reasoning_content": think[j:j + 9]}}]})
        if tool_call:
            a = tool_call["function"]["arguments"]
            ev({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": tool_call["id"], "type": "function",
                 "function": {"name": tool_call["function"]["name"], "arguments": a[: len(a) // 2]}}]}}]})
            ev({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": a[len(a) // 2:]}}]}}]})
        else:
            t = text or ""
            for j in range(0, len(t), 7):
                ev({**base, "choices": [{"index": 0, "delta": {"content": t[j:j + 7]}}]})
        ev({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            ev({**base, "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


    def chat_rule(self, body, msgs, sys0, lu):
        """the first of the variant's "chat_rules" that matches this chat-completions request: its answer, else None.
        match: system_contains / system_startswith (the first message, when it is a system message),
        system_user_contains (the system and user texts joined by spaces), title_request (no "tools" and a user
        message that starts with needle). answer: "{checkpoint}" -> the MARKER checkpoint (JSON),
        "{prompt2}" -> the first two words of the prompt."""
        for r in VARIANT.get("chat_rules", []):
            m, needle = r["match"], r["needle"]
            if m == "system_contains":
                hit = needle in sys0
            elif m == "system_startswith":
                hit = sys0.startswith(needle)
            elif m == "system_user_contains":
                hit = needle in " ".join(text_of(m_.get("content", "")) for m_ in msgs
                                         if m_.get("role") in ("system", "user"))
            elif m == "title_request":
                hit = not body.get("tools") and any(
                    m_.get("role") == "user" and text_of(m_.get("content", "")).startswith(needle) for m_ in msgs)
            else:
                raise ValueError("unknown chat_rules match: " + m)
            if hit:
                return (r["answer"].replace("{checkpoint}", summary_answer()[0] or "")
                        .replace("{prompt2}", " ".join(lu.split()[:2])))
        return None

    def cline_steps(self, body, msgs, last, k, i, canon):
        """cline-tasks: STEPS scripts and Cline condense / summarize_task instructions; True when answered."""
        last_all = text_of(last.get("content", "")) if last.get("role") == "user" else ""
        if last.get("role") == "user" and 'explicit_instructions type="condense"' in last_all:
            text = ("<condense>\n<context>\nMARKER-CONDENSE summary of request " + str(k)
                    + ": created notes.txt, edited it, read it back.\n</context>\n</condense>")
            self.send_chat_text(body, k, i, canon, text)
            return True
        if last.get("role") == "user" and 'explicit_instructions type="condense_response"' in last_all:
            text = ("<ask_followup_question>\n<question>MARKER-FOLLOWUP What should I work on next?</question>\n"
                    "</ask_followup_question>")
            self.send_chat_text(body, k, i, canon, text)
            return True
        if last.get("role") == "user" and 'explicit_instructions type="summarize_task"' in last_all:
            summ = "MARKER-SUMMARIZE summary of request " + str(k) + ": printed long outputs."
            if body.get("tools"):  # native-tools prompt variant: answer with a native summarize_task call
                tc = {"id": f"call_{k}-Zq.9/x", "type": "function",
                      "function": {"name": "summarize_task", "arguments": json.dumps({"context": summ})}}
                self.send_chat_text(body, k, i, canon, "", tc)
                return True
            text = "<summarize_task>\n<context>\n" + summ + "\n</context>\n</summarize_task>"
            self.send_chat_text(body, k, i, canon, text)
            return True
        if last.get("role") == "user" and "This session is being continued from a previous conversation" in last_all:
            res = "MARKER-AFTER-SUMMARY continued after the summary"
            if body.get("tools"):
                tc = {"id": f"call_{k}-Zq.9/x", "type": "function",
                      "function": {"name": "attempt_completion", "arguments": json.dumps({"result": res})}}
                self.send_chat_text(body, k, i, canon, "", tc)
                return True
            self.send_chat_text(body, k, i, canon,
                                "<attempt_completion><result>" + res + "</result></attempt_completion>")
            return True
        steps_at, steps = None, None
        for mi in range(len(msgs) - 1, -1, -1):
            if msgs[mi].get("role") != "user":
                continue
            for line in text_of(msgs[mi].get("content", "")).split("\n"):
                if line.strip().startswith("STEPS "):
                    steps = line.strip()[6:].split(" ;; ")
            if steps is not None:
                steps_at = mi
                break
        if steps is not None:
            done = sum(1 for m_ in msgs[steps_at + 1:] if m_.get("role") == "assistant")
            text = steps[done].replace("\\n", "\n") if done < len(steps) else "ack"
            if text.startswith("CALL "):  # a native tool call (Cline's native-tools prompt variants)
                _, name, args = text.split(" ", 2)
                tc = {"id": f"call_{k}-Zq.9/x", "type": "function", "function": {"name": name, "arguments": args}}
                self.send_chat_text(body, k, i, canon, "", tc)
                return True
            self.send_chat_text(body, k, i, canon, text)
            return True
        return None

    def send_chat_text(self, body, k, i, canon, text, tool_call=None):
        """added for cline-tasks: a streamed/non-streamed chat completion carrying `text` or one tool call."""
        if tool_call:
            msg = {"role": "assistant", "content": None, "tool_calls": [tool_call]}
            ptok = len(canon) // 4
            usage = {"prompt_tokens": ptok, "completion_tokens": len(tool_call["function"]["arguments"]) // 4 + 1,
                     "total_tokens": ptok + len(tool_call["function"]["arguments"]) // 4 + 1,
                     "prompt_tokens_details": {"cached_tokens": i // 4}}
            if not body.get("stream"):
                return self.send_json(200, {"id": f"chatcmpl-{k}", "object": "chat.completion",
                                            "created": int(time.time()), "model": "mock",
                                            "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}],
                                            "usage": usage})
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            base = {"id": f"chatcmpl-{k}", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": "mock"}

            def ev(obj):
                self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")
                self.wfile.flush()
            a = tool_call["function"]["arguments"]
            ev({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
            ev({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": tool_call["id"], "type": "function",
                 "function": {"name": tool_call["function"]["name"], "arguments": a[: len(a) // 2]}}]}}]})
            ev({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": a[len(a) // 2:]}}]}}]})
            ev({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
            if (body.get("stream_options") or {}).get("include_usage"):
                ev({**base, "choices": [], "usage": usage})
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True
            return
        ptok = len(canon) // 4
        usage = {"prompt_tokens": ptok, "completion_tokens": len(text) // 4 + 1,
                 "total_tokens": ptok + len(text) // 4 + 1,
                 "prompt_tokens_details": {"cached_tokens": i // 4}}
        base = {"id": f"chatcmpl-{k}", "created": int(time.time()), "model": "mock"}
        if not body.get("stream"):
            return self.send_json(200, {**base, "object": "chat.completion",
                                        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                                     "finish_reason": "stop"}], "usage": usage})
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        base["object"] = "chat.completion.chunk"

        def ev(obj):
            self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")
            self.wfile.flush()
        ev({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
        for j in range(0, len(text), 7):
            ev({**base, "choices": [{"index": 0, "delta": {"content": text[j:j + 7]}}]})
        ev({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            ev({**base, "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    # ---- added for Aider: an edit in the edit format its system prompt asks for ----
    def aider_edit(self, spec, sys0, all_text):
        path, search, replace = spec["path"], spec.get("search", ""), spec.get("replace", "")
        if "SEARCH/REPLACE" in sys0:
            if re.search(r"```\n[^\n`]+\n<<<<<<< SEARCH", all_text):  # diff-fenced: the name inside the fence
                return (f"Changing {path}.\n\n```\n{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}"
                        f">>>>>>> REPLACE\n```\n")
            return (f"Changing {path}.\n\n{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}"
                    f">>>>>>> REPLACE\n```\n")
        if "unified diff" in sys0:
            minus = "".join("-" + l + "\n" for l in search.splitlines())
            plus = "".join("+" + l + "\n" for l in replace.splitlines())
            return f"Changing {path}.\n\n```diff\n--- {path}\n+++ {path}\n@@ ... @@\n{minus}{plus}```\n"
        content = spec.get("content", replace)
        return f"Changing {path}.\n\n{path}\n```\n{content}```\n"

    # ---- Responses API (added for Codex; extended for tests/fixtures/compat/codex, see the docstring) ----
    def do_responses(self, body, k, i, canon):
        items = body.get("input", [])
        if isinstance(items, str):
            items = [{"type": "message", "role": "user", "content": items}]
        last = items[-1] if items else {}
        def item_text(it):
            c = it.get("content", "")
            if isinstance(c, str):
                return c
            return "".join(p.get("text", "") for p in c if isinstance(p, dict))
        def prompt_of(it):
            # the prompt is the last text part (or last line) that starts with DO/SAY/THINK
            c = it.get("content", "")
            parts = [c] if isinstance(c, str) else [p.get("text", "") for p in c if isinstance(p, dict)]
            for t in reversed(parts):
                t = t.strip()
                if t.startswith(("DO ", "SAY ", "THINK ")):
                    return t
            m_ = re.search(r"(?:^|\n)((?:THINK |DO |SAY )[^\n]*)\s*$", item_text(it).strip())
            return m_.group(1).strip() if m_ else item_text(it).strip()
        maxt = body.get("max_output_tokens")
        ui = [j for j, it in enumerate(items) if it.get("role") == "user"]
        last_user = items[ui[-1]] if ui else {}
        lu = prompt_of(last_user) if last_user else ""
        v2 = F("responses_v2")
        if not v2:  # the plain Responses script: the prompt is the last item's whole text when it is a user message
            lu = item_text(last).strip() if last.get("role") == "user" else ""
        think = None
        if v2 and lu.startswith("THINK "):
            lu = lu[6:].strip()
            if last.get("role") == "user":
                think = f"MARKER-THINK pondering request {k}"
        tools = {t.get("name"): t.get("type") for t in (body.get("tools") or []) if isinstance(t, dict)}
        def make_call(step):
            _, name, args = step.split(" ", 2)
            if v2 and tools.get(name) == "custom":  # freeform tool (apply_patch in newer Codex): raw input
                try:
                    args = json.loads(args).get("input", args)
                except Exception:
                    pass
                return {"type": "custom_tool_call", "id": f"ctc_{k}", "call_id": f"call_{k}-Zq.9/x",
                        "name": name, "input": args, "status": "completed"}
            return {"type": "function_call", "id": f"fc_{k}", "call_id": f"call_{k}-Zq.9/x",
                    "name": name, "arguments": args, "status": "completed"}
        tool_call, text = None, None
        is_out = last.get("type") in (("function_call_output", "custom_tool_call_output", "local_shell_call_output")
                                      if v2 else ("function_call_output", "custom_tool_call_output"))
        if maxt == SUMMARY_MAX:
            text, _ = summary_answer()
        elif v2 and is_out and " ;; " in lu:
            steps = lu.split(" ;; ")
            after = items[ui[-1] + 1:] if ui else []
            done = sum(1 for it in after if it.get("type") in ("function_call", "custom_tool_call", "local_shell_call"))
            if done < len(steps) and steps[done].startswith("DO "):
                tool_call = make_call(steps[done])
            else:
                text = "ack " + str(last.get("call_id"))
        elif is_out:
            text = "ack " + str(last.get("call_id"))
        elif last.get("role") == "user" and lu.startswith("DO "):
            tool_call = make_call(lu.split(" ;; ")[0] if v2 else lu)
        elif last.get("role") == "user" and lu.startswith("SAY "):
            text = lu[4:]
        else:
            text, _ = summary_answer()
        if text is None and tool_call is None:
            return self.send_json(500, {"error": {"message": "mock failure"}})
        ptok = len(canon) // 4
        otok = len(text or "") // 4 + 1
        rtok = len(think) // 4 if think else 0
        usage = {"input_tokens": ptok, "input_tokens_details": {"cached_tokens": i // 4},
                 "output_tokens": otok + rtok, "output_tokens_details": {"reasoning_tokens": rtok},
                 "total_tokens": ptok + otok + rtok}
        rid = f"resp_{k}"
        out = []
        if think:
            out.append({"type": "reasoning", "id": f"rs_{k}", "summary": [{"type": "summary_text", "text": think}],
                        "encrypted_content": None})
        if tool_call:
            item = tool_call
        else:
            item = {"type": "message", "id": f"msg_{k}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
        out.append(item)
        resp = {"id": rid, "object": "response", "created_at": int(time.time()), "model": body.get("model"),
                "status": "completed", "output": out, "usage": usage}
        if not body.get("stream"):
            return self.send_json(200, resp)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        seq = [0]
        def ev(obj):
            obj["sequence_number"] = seq[0]; seq[0] += 1
            self.wfile.write(b"event: " + obj["type"].encode() + b"\ndata: " + json.dumps(obj).encode() + b"\n\n")
            self.wfile.flush()
        ev({"type": "response.created", "response": {**resp, "status": "in_progress", "output": [], "usage": None}})
        oi = 0
        if think:
            r = out[0]
            ev({"type": "response.output_item.added", "output_index": oi, "item": {**r, "summary": []}})
            ev({"type": "response.reasoning_summary_part.added", "output_index": oi, "item_id": r["id"], "summary_index": 0,
                "part": {"type": "summary_text", "text": ""}})
            for j in range(0, len(think), 9):
                ev({"type": "response.reasoning_summary_text.delta", "output_index": oi, "item_id": r["id"],
                    "summary_index": 0, "delta": think[j:j + 9]})
            ev({"type": "response.reasoning_summary_text.done", "output_index": oi, "item_id": r["id"], "summary_index": 0, "text": think})
            ev({"type": "response.reasoning_summary_part.done", "output_index": oi, "item_id": r["id"], "summary_index": 0,
                "part": {"type": "summary_text", "text": think}})
            ev({"type": "response.output_item.done", "output_index": oi, "item": r})
            oi += 1
        if tool_call and item["type"] == "custom_tool_call":
            ev({"type": "response.output_item.added", "output_index": oi, "item": {**item, "input": "", "status": "in_progress"}})
            a = item["input"]
            ev({"type": "response.custom_tool_call_input.delta", "output_index": oi, "item_id": item["id"], "delta": a})
            ev({"type": "response.custom_tool_call_input.done", "output_index": oi, "item_id": item["id"], "input": a})
        elif tool_call:
            ev({"type": "response.output_item.added", "output_index": oi, "item": {**item, "arguments": "", "status": "in_progress"}})
            a = item["arguments"]
            ev({"type": "response.function_call_arguments.delta", "output_index": oi, "item_id": item["id"], "delta": a[: len(a) // 2]})
            ev({"type": "response.function_call_arguments.delta", "output_index": oi, "item_id": item["id"], "delta": a[len(a) // 2:]})
            ev({"type": "response.function_call_arguments.done", "output_index": oi, "item_id": item["id"], "arguments": a})
        else:
            ev({"type": "response.output_item.added", "output_index": oi, "item": {**item, "content": [], "status": "in_progress"}})
            ev({"type": "response.content_part.added", "output_index": oi, "item_id": item["id"], "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}})
            for j in range(0, len(text), 7):
                ev({"type": "response.output_text.delta", "output_index": oi, "item_id": item["id"], "content_index": 0, "delta": text[j:j + 7]})
            ev({"type": "response.output_text.done", "output_index": oi, "item_id": item["id"], "content_index": 0, "text": text})
            ev({"type": "response.content_part.done", "output_index": oi, "item_id": item["id"], "content_index": 0, "part": {"type": "output_text", "text": text, "annotations": []}})
        ev({"type": "response.output_item.done", "output_index": oi, "item": item})
        ev({"type": "response.completed", "response": resp})
        self.close_connection = True

    # ---- Anthropic Messages API: a forced tool (variant "forced_tool"), the script language of claude-code
    #      (feature "messages_script") or the minimal one-step script (everyone else) ----
    def do_messages(self, body, k, i, canon):
        tc = body.get("tool_choice") or {}
        if F("forced_tool") and tc.get("type") == "tool" and tc.get("name"):
            return self.forced_tool(body, k, canon)
        if F("messages_script"):
            return self.do_messages_script(body, k, i, canon)
        return self.do_messages_plain(body, k, i, canon)

    def do_messages_plain(self, body, k, i, canon):
        msgs = [m for m in body.get("messages", []) if m.get("role") != "system"]
        last = msgs[-1] if msgs else {}
        c = last.get("content", "")
        blocks = c if isinstance(c, list) else [{"type": "text", "text": c}]
        tres = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        # the user's own text is the last text block that is not a <system-reminder>
        lu = ""
        for t in reversed(texts):
            if not t.strip().startswith("<system-reminder>"):
                lu = t.strip(); break
        maxt = body.get("max_tokens")
        tool_call, text = None, None
        if maxt == SUMMARY_MAX:
            text, _ = summary_answer()
        elif last.get("role") == "user" and tres:
            text = "ack " + str(tres[-1].get("tool_use_id"))
        elif last.get("role") == "user" and lu.startswith("DO "):
            _, name, args = lu.split(" ", 2)
            tool_call = {"type": "tool_use", "id": f"toolu_{k:02d}mock", "name": name, "input": json.loads(args)}
        elif last.get("role") == "user" and lu.startswith("SAY "):
            text = lu[4:]
        elif last.get("role") == "user" and lu.startswith("SAYBIG "):
            text = lu[7:]
            i += 4 * int(os.environ.get("BIG_TOKENS", "90000"))  # pretend a huge cached prefix
        else:
            text, _ = summary_answer()
            if "summary" in json.dumps(body.get("system", "")).lower() + lu.lower():
                text = "<analysis>MARKER-ANALYSIS</analysis>\n<summary>MARKER-SUMMARY " + text + "</summary>"
        if text is None and tool_call is None:
            return self.send_json(500, {"type": "error", "error": {"type": "api_error", "message": "mock failure"}})
        ptok = len(canon) // 4
        otok = len(text or "") // 4 + 1
        content = [tool_call] if tool_call else [{"type": "text", "text": text}]
        stop = "tool_use" if tool_call else "end_turn"
        usage = {"input_tokens": max(ptok - i // 4, 1), "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": i // 4, "output_tokens": otok}
        msg = {"id": f"msg_mock{k:04d}", "type": "message", "role": "assistant", "model": body.get("model"),
               "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return self.send_json(200, msg)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        def ev(obj):
            self.wfile.write(b"event: " + obj["type"].encode() + b"\ndata: " + json.dumps(obj).encode() + b"\n\n")
            self.wfile.flush()
        ev({"type": "message_start", "message": {**msg, "content": [], "stop_reason": None,
                                                  "usage": {**usage, "output_tokens": 1}}})
        if tool_call:
            ev({"type": "content_block_start", "index": 0, "content_block": {**tool_call, "input": {}}})
            a = json.dumps(tool_call["input"])
            ev({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": a[: len(a) // 2]}})
            ev({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": a[len(a) // 2:]}})
        else:
            ev({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
            for j in range(0, len(text), 7):
                ev({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text[j:j + 7]}})
        ev({"type": "content_block_stop", "index": 0})
        ev({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": otok}})
        ev({"type": "message_stop"})
        self.close_connection = True

    # ---- Anthropic Messages API, rewritten for tests/fixtures/compat/claude-code (see the docstring) ----
    KW = ("THINK", "DO ", "SAY ", "SAYBIG ", "PAUSE")

    @staticmethod
    def split_top(s, sep):
        """split s on sep, but only outside JSON objects/strings (a Task prompt may hold its own script)."""
        out, depth, instr, esc, start, j = [], 0, False, False, 0, 0
        while j < len(s):
            ch = s[j]
            if instr:
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    instr = False
            elif ch == '"' and depth > 0:
                instr = True
            elif ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
            elif depth == 0 and s.startswith(sep, j):
                out.append(s[start:j]); j += len(sep); start = j; continue
            j += 1
        out.append(s[start:])
        return [x.strip() for x in out if x.strip()]

    @classmethod
    def script_text(cls, content):
        """the user's script in one user message: the last text (or its last line) starting with a keyword."""
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        for b in reversed(blocks):
            if not isinstance(b, dict) or b.get("type") != "text":
                continue
            t = (b.get("text") or "").strip()
            if "<command-contents>" in t:  # 0.2.x custom command: the file's text as JSON inside the tag
                inner = t.split("<command-contents>", 1)[1].split("</command-contents>", 1)[0]
                try:
                    inner = json.loads(inner).get("text", "")
                except Exception:
                    pass
                if inner.strip().startswith(cls.KW):
                    return inner.strip()
            if t.startswith(cls.KW):
                return t
            last_line = t.rsplit("\n", 1)[-1].strip()
            if last_line.startswith(cls.KW) and not t.startswith("<system-reminder>"):
                return last_line
        return None

    def side_answer(self, body, msgs, last):
        """answers for Claude Code's own side requests (titles, topic detection, bash prefix checks)."""
        sysj = json.dumps(body.get("system", ""))
        lastj = json.dumps(last.get("content", ""))
        if text_of(last.get("content", "")).strip() == "Warmup":
            return "Ready."
        if "isNewTopic" in sysj:
            return json.dumps({"isNewTopic": True, "title": "Mock corpus topic"})
        if "policy_spec" in sysj or "policy_spec" in lastj or "command prefix" in sysj.lower():
            return "none"
        if ("title" in sysj.lower() or "title" in lastj.lower()) and not body.get("tools"):
            if '"title"' in sysj or "json" in sysj.lower():
                return json.dumps({"title": "Mock corpus session title"})
            return "Mock corpus session title"
        return None

    # ---- the agent's own service (features "amp_service" and "augment_api"): paths that are not a model API ----
    def service(self, p0, body):
        with lock:
            with open(LOG + ".side", "a") as f:
                f.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if p0 == "/api/internal":  # Amp's JSON-RPC ({"method","params"} -> {"ok":true,"result"})
            m = body.get("method") if isinstance(body, dict) else None
            credits = float(os.environ.get("AMP_CREDITS", "0.0123")) if F("augment_api") else 0.0123
            res = {"getUserInfo": {"id": "user-mock", "email": "mock@example.invalid", "username": "mock",
                                   "displayName": "Mock User", "siteAdmin": False, "features": []},
                   "getCreditsByRequestId": {"credits": credits},
                   }.get(m, {})
            return self.send_json(200, {"ok": True, "result": res})
        if F("augment_api"):
            if p0 == "/agents/list-remote-tools":
                return self.send_json(200, {"tools": []})
            if p0 == "/get-models" and os.environ.get("AUG_MODELS"):
                return self.send_json(200, json.loads(os.environ["AUG_MODELS"]))
            if p0 in ("/get-models",):
                return self.send_json(404, {"error": "not in the mock"})
        return self.send_json(200, {})

    def forced_tool(self, body, k, canon):
        """Amp's title request: tool_choice {"type":"tool","name":"set_title"} -> that tool, filled in from the
        variant's "forced_tool" data: "title" for a property named title, else "string" (with "typed": arrays [],
        booleans false, numbers 0 first)."""
        ft = VARIANT["forced_tool"]
        tc = body.get("tool_choice") or {}
        tdef = next((t for t in body.get("tools") or [] if t.get("name") == tc["name"]), {})
        props = (tdef.get("input_schema") or {}).get("properties") or {}
        def fill(kk, v):
            t = (v or {}).get("type")
            if kk == "title":
                return ft["title"]
            if not ft.get("typed"):
                return ft["string"]
            if t == "array":
                return []
            if t == "boolean":
                return False
            if t in ("number", "integer"):
                return 0
            return ft["string"]
        inp = {kk: fill(kk, v) for kk, v in props.items()}
        usage = {"input_tokens": len(canon) // 4, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                 "output_tokens": 12}
        msg = {"id": f"msg_mock{k:04d}", "type": "message", "role": "assistant", "model": body.get("model"),
               "content": [{"type": "tool_use", "id": f"toolu_{k:02d}mock", "name": tc["name"], "input": inp}],
               "stop_reason": "tool_use", "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            return self.send_json(200, msg)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        def ev_(obj):
            self.wfile.write(b"event: " + obj["type"].encode() + b"\ndata: " + json.dumps(obj).encode() + b"\n\n")
            self.wfile.flush()
        ev_({"type": "message_start", "message": {**msg, "content": [], "stop_reason": None}})
        ev_({"type": "content_block_start", "index": 0, "content_block": {**msg["content"][0], "input": {}}})
        ev_({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": json.dumps(inp)}})
        ev_({"type": "content_block_stop", "index": 0})
        ev_({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 12}})
        ev_({"type": "message_stop"})
        self.close_connection = True

    def do_messages_script(self, body, k, i_unused, canon_unused):
        msgs = [m for m in body.get("messages", []) if m.get("role") != "system"]
        last = msgs[-1] if msgs else {}
        c = last.get("content", "")
        blocks = c if isinstance(c, list) else [{"type": "text", "text": c}]
        tres = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        # prompt-cache simulation over tools + system + messages (the order the API caches them in)
        canon = json.dumps([body.get("tools", []), body.get("system", ""), body.get("messages", [])], sort_keys=True)
        with lock:
            hist = state.setdefault("ahist", [])
            best = 0
            for prev in hist:
                lim = min(len(prev), len(canon)); j = 0
                while j < lim and prev[j] == canon[j]:
                    j += 1
                best = max(best, j)
            hist.append(canon)
            del hist[:-40]
        out = []  # list of content blocks to stream: thinking / text / tool_use
        big = False
        side = None if last.get("role") != "user" else (None if tres else self.side_answer(body, msgs, last))
        # a summarizer instruction appended to the last user message (beside tool results, e.g. /compact)
        summarize = last.get("role") == "user" and any(
            isinstance(b, dict) and b.get("type") == "text" and "summary" in (b.get("text") or "").lower()
            and len(b.get("text") or "") > 200 and not (b.get("text") or "").strip().startswith(("<system-reminder>",) + self.KW)
            for b in blocks) and not self.script_text(c)
        pi = None
        if side is None and last.get("role") == "user" and not summarize:
            # where is the script? the last user message holding keyword text
            for idx in range(len(msgs) - 1, -1, -1):
                if msgs[idx].get("role") == "user" and self.script_text(msgs[idx].get("content")):
                    pi = idx; break
            if not tres and (pi is None or pi != len(msgs) - 1):
                pi = None  # last message is neither a tool result nor a script: a summarizer / other request
        if side is not None:
            out.append({"type": "text", "text": side})
        elif pi is not None:
            steps = self.split_top(self.script_text(msgs[pi].get("content")), " ;; ")
            # steps done = assistant turns after the prompt: consecutive assistant messages are one turn, and a
            # turn sent twice (0.2.x repeats the last exchange in its requests) counts once
            runs, prev_role = [], None
            for m in msgs[pi + 1:]:
                if m.get("role") == "assistant":
                    c_ = m.get("content")
                    c_ = [{k_: v_ for k_, v_ in b_.items() if k_ != "cache_control"} for b_ in c_ if isinstance(b_, dict)] \
                        if isinstance(c_, list) else c_
                    if prev_role == "assistant":
                        runs[-1] += json.dumps(c_, sort_keys=True)
                    else:
                        runs.append(json.dumps(c_, sort_keys=True))
                prev_role = m.get("role")
            done = len(set(runs))
            if done < len(steps):
                for n_, part in enumerate(self.split_top(steps[done], " && ")):
                    if part.startswith("THINK"):
                        out.append({"type": "thinking", "thinking": f"MARKER-THINK pondering request {k}",
                                    "signature": "bW9jay1zaWduYXR1cmU="})
                        part = part[5:].strip()
                        if not part:
                            continue
                    if part.startswith("PAUSE"):
                        time.sleep(float(part.split()[1]) if len(part.split()) > 1 else 1.0)
                        continue
                    if part.startswith("DO "):
                        _, name, args = part.split(" ", 2)
                        out.append({"type": "tool_use", "id": f"toolu_{k:02d}mock{n_}", "name": name,
                                    "input": json.loads(args)})
                    elif part.startswith("SAYBIG "):
                        out.append({"type": "text", "text": part[7:]}); big = True
                    elif part.startswith("SAY "):
                        out.append({"type": "text", "text": part[4:]})
                if not any(b["type"] in ("text", "tool_use") for b in out):
                    out.append({"type": "text", "text": "ok"})
            else:
                out.append({"type": "text", "text": "ack " + str(tres[-1].get("tool_use_id") if tres else "done")})
        elif last.get("role") == "user" and tres and not summarize:
            out.append({"type": "text", "text": "ack " + str(tres[-1].get("tool_use_id"))})
        else:
            text, _ = summary_answer()
            lu = json.dumps(last.get("content", ""))
            if "summary" in (json.dumps(body.get("system", "")) + lu).lower():
                text = "<analysis>MARKER-ANALYSIS</analysis>\n<summary>MARKER-SUMMARY " + text + "</summary>"
            out.append({"type": "text", "text": text})
        stop = "tool_use" if any(b["type"] == "tool_use" for b in out) else "end_turn"
        ptok = max(len(canon) // 4, 1)
        read = min(best // 4, ptok - 1)
        if big:
            read += int(os.environ.get("BIG_TOKENS", "90000"))
            ptok += int(os.environ.get("BIG_TOKENS", "90000"))
        rest = ptok - read
        inp = min(rest, 3 + k % 5)
        create = rest - inp
        one_h = create // 2 if (os.environ.get("CACHE1H", "1") == "1" and k % 3 == 0) else 0
        otok = sum(len(b.get("thinking", "") + b.get("text", "") + json.dumps(b.get("input", ""))) for b in out) // 4 + 1
        usage = {"input_tokens": inp, "cache_creation_input_tokens": create, "cache_read_input_tokens": read,
                 "cache_creation": {"ephemeral_5m_input_tokens": create - one_h, "ephemeral_1h_input_tokens": one_h},
                 "output_tokens": otok, "service_tier": "standard"}
        msg = {"id": f"msg_mock{k:04d}", "type": "message", "role": "assistant", "model": body.get("model"),
               "content": out, "stop_reason": stop, "stop_sequence": None, "usage": usage}
        if os.environ.get("REPLY_LOG"):
            with lock, open(os.environ["REPLY_LOG"], "a") as f:
                f.write(json.dumps({"k": k, "path": self.path, "model": body.get("model"),
                                    "stream": bool(body.get("stream")), "reply": out, "usage": usage}) + "\n")
        if not body.get("stream"):
            b_ = json.dumps(msg).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("request-id", f"req_mock{k:04d}")
            self.send_header("content-length", str(len(b_)))
            self.end_headers()
            self.wfile.write(b_)
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", f"req_mock{k:04d}")
        self.send_header("connection", "close")
        self.end_headers()
        def ev(obj):
            self.wfile.write(b"event: " + obj["type"].encode() + b"\ndata: " + json.dumps(obj).encode() + b"\n\n")
            self.wfile.flush()
        ev({"type": "message_start", "message": {**msg, "content": [], "stop_reason": None,
                                                  "usage": {**usage, "output_tokens": 1}}})
        for n_, b in enumerate(out):
            if b["type"] == "tool_use":
                ev({"type": "content_block_start", "index": n_, "content_block": {**b, "input": {}}})
                a = json.dumps(b["input"])
                ev({"type": "content_block_delta", "index": n_, "delta": {"type": "input_json_delta", "partial_json": a[: len(a) // 2]}})
                ev({"type": "content_block_delta", "index": n_, "delta": {"type": "input_json_delta", "partial_json": a[len(a) // 2:]}})
            elif b["type"] == "thinking":
                ev({"type": "content_block_start", "index": n_, "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
                t = b["thinking"]
                for j in range(0, len(t), 9):
                    ev({"type": "content_block_delta", "index": n_, "delta": {"type": "thinking_delta", "thinking": t[j:j + 9]}})
                ev({"type": "content_block_delta", "index": n_, "delta": {"type": "signature_delta", "signature": b["signature"]}})
            else:
                ev({"type": "content_block_start", "index": n_, "content_block": {"type": "text", "text": ""}})
                t = b["text"]
                for j in range(0, len(t), 7):
                    ev({"type": "content_block_delta", "index": n_, "delta": {"type": "text_delta", "text": t[j:j + 7]}})
            ev({"type": "content_block_stop", "index": n_})
            if n_ < len(out) - 1:  # a pause between blocks (not after the last one, as with the real API)
                time.sleep(float(os.environ.get("BLOCK_DELAY", "0.3")))
        ev({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"input_tokens": inp, "cache_creation_input_tokens": create, "cache_read_input_tokens": read,
                      "output_tokens": otok}})
        ev({"type": "message_stop"})
        self.close_connection = True

    # ---- minimal Gemini API (added for Gemini CLI): models/<m>:generateContent, :streamGenerateContent?alt=sse,
    #      :countTokens. Function calls carry no id unless GEMINI_CALL_IDS=1 (the public API normally omits it).
    def do_gemini(self, body, k, i, canon, stream):
        contents = body.get("contents", [])
        last = contents[-1] if contents else {}
        parts = last.get("parts", []) if isinstance(last.get("parts"), list) else []
        texts = [p.get("text", "") for p in parts if isinstance(p, dict) and "text" in p]
        fres = [p["functionResponse"] for p in parts if isinstance(p, dict) and "functionResponse" in p]
        lu = ""
        for t in reversed(texts):
            t2 = t.strip()
            if t2.startswith(("DO ", "SAY ", "THINK ")):
                lu = t2; break
        sysi = json.dumps(body.get("systemInstruction", ""))
        gc = body.get("generationConfig") or {}
        schema = gc.get("responseJsonSchema") or gc.get("responseSchema")
        think = None
        if lu.startswith("THINK "):
            lu = lu[6:].strip()
            think = f"MARKER-THINK pondering request {k}"
        fcall, text = None, None
        all_user_text = "".join(t for t in texts)
        gtitle = VARIANT.get("gemini_title")  # {"needle", "answer"}: a title request and its fixed answer
        if schema:
            text = json.dumps(self.gemini_fill(schema))
        elif gtitle and gtitle["needle"] in all_user_text and last.get("role") == "user":
            # gemini-cli: the session-summary (title) request of Gemini CLI (SessionSummaryService)
            text = gtitle["answer"]
        elif "state_snapshot" in sysi:
            text = "<state_snapshot>\n" + (summary_answer()[0] or "") + "\n</state_snapshot>"
            if F("gemini_scratchpad") and "scratchpad" in sysi and not os.environ.get("NO_SCRATCHPAD"):
                # gemini-cli: the compression prompt asks the model to "reason in your scratchpad" first; a real
                # model writes <scratchpad>...</scratchpad> before the snapshot, so this answer does too
                text = "<scratchpad>\nMARKER-SCRATCHPAD request %d: goal, actions, files reviewed\n</scratchpad>\n" % k + text
        elif last.get("role") == "user" and fres:
            text = "ack " + str(fres[-1].get("id") or fres[-1].get("name"))
        elif last.get("role") == "user" and lu.startswith("DO "):
            _, name, args = lu.split(" ", 2)
            fcall = {"name": name, "args": json.loads(args)}
            if os.environ.get("GEMINI_CALL_IDS"):
                fcall["id"] = f"call_{k}-Zq.9/x"
        elif last.get("role") == "user" and lu.startswith("SAY "):
            text = lu[4:]
        else:
            text, _ = summary_answer()
        ptok = len(canon) // 4
        otok = len(text or "") // 4 + 1
        usage = {"promptTokenCount": ptok, "candidatesTokenCount": otok, "totalTokenCount": ptok + otok,
                 "cachedContentTokenCount": i // 4,
                 "promptTokensDetails": [{"modality": "TEXT", "tokenCount": ptok}]}
        if think:
            usage["thoughtsTokenCount"] = len(think) // 4
            usage["totalTokenCount"] += len(think) // 4
        out_parts = []
        if think:
            out_parts.append({"text": think, "thought": True})
        if fcall:
            out_parts.append({"functionCall": fcall, "thoughtSignature": "bW9jay1zaWduYXR1cmU="} if think else {"functionCall": fcall})
        else:
            out_parts.append({"text": text})
        mv = str(body.get("model") or self.path.split("/models/")[-1].split(":")[0])
        def resp(ps, finish, with_usage=True):
            c = {"content": {"role": "model", "parts": ps}, "index": 0}
            if finish:
                c["finishReason"] = finish
            r = {"candidates": [c], "modelVersion": mv, "responseId": f"resp-{k}"}
            if with_usage:
                r["usageMetadata"] = usage
            return r
        if not stream:
            return self.send_json(200, resp(out_parts, "STOP"))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        def ev(obj):
            self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\r\n\r\n")
            self.wfile.flush()
        chunks = []
        if think:
            chunks.append([{"text": think, "thought": True}])
        if fcall:
            chunks.append([out_parts[-1]])
        else:
            t = text or ""
            pieces = [t[j:j + 7] for j in range(0, len(t), 7)] or [""]
            chunks += [[{"text": x}] for x in pieces]
        for n_, ps in enumerate(chunks):
            fin = "STOP" if n_ == len(chunks) - 1 else None
            ev(resp(ps, fin, with_usage=(fin is not None)))
        self.close_connection = True

    def gemini_fill(self, sch):
        t = (sch.get("type") or "").lower()
        if "enum" in sch:
            e = sch["enum"]
            return "user" if "user" in e else e[0]
        if t == "object" or "properties" in sch:
            return {kk: self.gemini_fill(v) for kk, v in (sch.get("properties") or {}).items()}
        if t == "array":
            return []
        if t in ("number", "integer"):
            return 0
        if t == "boolean":
            return False
        return "mock"


    # ---- Augment API (added for tests/fixtures/compat/auggie; see the docstring) ----
    AKW = ("DO ", "SAY ", "THINK ", "OVERFLOW ")

    @classmethod
    def aug_prompt(cls, texts):
        for t in reversed(texts):
            t = (t or "").strip()
            if t.startswith(cls.AKW):
                return t
            ll = t.rsplit("\n", 1)[-1].strip()
            if ll.startswith(cls.AKW):
                return ll
        return None

    def do_augment(self, body, k, i, canon):
        nodes = body.get("nodes") or []
        hist = body.get("chat_history") or []
        def texts(ns, msg=None):
            out = [(n.get("text_node") or {}).get("content", "") for n in ns
                   if isinstance(n, dict) and n.get("type") == 0 and n.get("text_node")]
            if msg:
                out.append(msg)
            return out
        tres = [n["tool_result_node"] for n in nodes if isinstance(n, dict) and n.get("type") == 1 and n.get("tool_result_node")]
        prompt = None if tres else self.aug_prompt(texts(nodes, body.get("message")))
        done = 0
        if tres:
            for ex in reversed(hist):
                done += sum(1 for n in (ex.get("response_nodes") or []) if n.get("type") == 5)
                p_ = self.aug_prompt(texts(ex.get("request_nodes") or [], ex.get("request_message")))
                if p_:
                    prompt = p_
                    break
        think = None
        tool, text = None, None
        if tres:
            p2 = prompt or ""
            for pre in ("OVERFLOW ", "THINK "):
                if p2.startswith(pre):
                    p2 = p2[len(pre):].strip()
            steps = p2.split(" ;; ")
            if prompt and done < len(steps) and steps[done].strip().startswith("DO "):
                _, name, args = steps[done].strip().split(" ", 2)
                tool = (name, args)
            else:
                text = "ack " + str(tres[-1].get("tool_use_id"))
        elif prompt and prompt.startswith("OVERFLOW ") and (body.get("conversation_id"), prompt) not in AUG_OVERFLOWED:
            AUG_OVERFLOWED.add((body.get("conversation_id"), prompt))
            # a context overflow as the backend reports it: no answer, summarize_and_retry
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(json.dumps({"text": "", "nodes": [], "summarize_and_retry": True}).encode() + b"\n")
            self.close_connection = True
            return
        elif prompt:
            if prompt.startswith("OVERFLOW "):
                prompt = prompt[9:].strip()
            if prompt.startswith("THINK "):
                prompt = prompt[6:].strip()
                think = f"MARKER-THINK pondering request {k}"
            first = prompt.split(" ;; ")[0].strip()
            if first.startswith("DO "):
                _, name, args = first.split(" ", 2)
                tool = (name, args)
            elif first.startswith("SAY "):
                text = first[4:]
            else:
                text = summary_answer()[0]
        else:
            text = ("<summary>MARKER-SUMMARY " + (summary_answer()[0] or "") + "</summary>")
        ptok = len(canon) // 4
        cached = min(i // 4, ptok)
        rest = ptok - cached
        inp = min(rest, 5)
        otok = len(text or "") // 4 + 1 + (len(think) // 4 if think else 0) + (len(tool[1]) // 4 if tool else 0)
        usage = {"input_tokens": inp, "output_tokens": otok, "cache_read_input_tokens": cached,
                 "cache_creation_input_tokens": rest - inp}
        if os.environ.get("AUG_MAX_CTX"):
            usage["max_context_tokens"] = int(os.environ["AUG_MAX_CTX"])
        cost = (inp * 3 + (rest - inp) * 3.75 + cached * 0.3 + otok * 15) / 1e6
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("connection", "close")
        self.end_headers()
        def ev(obj):
            self.wfile.write(json.dumps(obj).encode() + b"\n")
            self.wfile.flush()
        nid = [0]
        def node(**kw):
            nid[0] += 1
            return {"id": nid[0], **kw}
        if think:
            ev({"text": "", "nodes": [node(type=8, content="", thinking={"content": think, "summary": ""})]})
        if tool:
            tu = {"tool_use_id": f"toolu_aug{k:02d}-Zq.9/x", "tool_name": tool[0], "input_json": tool[1]}
            ev({"text": "", "nodes": [node(type=7, content="", tool_use={**tu, "input_json": ""})]})
            ev({"text": "", "nodes": [node(type=5, content="", tool_use=tu)], "stop_reason": 3})
        else:
            t = text or ""
            for j in range(0, len(t), 7):
                ev({"text": t[j:j + 7], "nodes": []})
            ev({"text": "", "nodes": [node(type=0, content=t), node(type=2, content=t)], "stop_reason": 1})
        ev({"text": "", "nodes": [node(type=10, content="", token_usage=usage),
                                  node(type=9, content="", billing_metadata={"transaction_id": f"txn-mock-{k}",
                                       "credits_consumed": 0, "cost_usd": f"{cost:.6f}", "usage_unit": 2,
                                       "effective_model_name": "mock-model"})]})
        self.close_connection = True



ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
