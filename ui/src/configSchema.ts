// Generated from the configuration types by alisio-api (src-tauri/crates/api/src/bindings.rs). Do not edit.
// Regenerate: ALISIO_UPDATE_BINDINGS=1 cargo test -p alisio-api

/** The JSON schema of config.json: defaults, ranges and option lists, as the engine checks them. */
export const CONFIG_SCHEMA = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "ConfigFile",
  "description": "The configuration file: every key `config.json` may hold, with its default.",
  "type": "object",
  "properties": {
    "provider": {
      "$ref": "#/$defs/ProviderFile",
      "default": {
        "id": "local",
        "baseUrl": "http://127.0.0.1:8080/v1",
        "model": "default",
        "apiKeyEnv": "OPENAI_API_KEY",
        "api": "chat",
        "contextWindow": null,
        "stream": true,
        "timeoutMs": 300000,
        "maxRetries": 3,
        "retryBaseMs": 500,
        "cacheDiagnostics": false
      }
    },
    "compaction": {
      "description": "When and how the history is compacted as the context fills up.",
      "$ref": "#/$defs/CompactionConfig",
      "default": {
        "auto": true,
        "threshold": 0.85,
        "keepTurns": 2,
        "maxOutputTokens": 16000,
        "strategy": "native",
        "pinFiles": [
          "AGENTS.md",
          "CLAUDE.md"
        ],
        "artifactTrail": true,
        "provider": {
          "trigger": null,
          "instructions": null,
          "clearToolUses": false,
          "clearToolUsesTrigger": null,
          "keepToolUses": 3,
          "clearAtLeast": null,
          "clearThinking": false,
          "pinsAsSystemMessage": true
        }
      }
    },
    "cacheCompact": {
      "description": "The cache-compatible strategy: a summary appended to the unchanged request, then the whole history cut.",
      "$ref": "#/$defs/CacheCompactConfig",
      "default": {
        "threshold": 68.0,
        "models": [],
        "summaryMaxTokens": 1200,
        "contextLimit": 131072,
        "autoResume": true,
        "abortOnTrip": true,
        "disablePrune": true,
        "debug": false,
        "resumePrompt": "Continue the task from the summary above."
      }
    },
    "limits": {
      "description": "Hard limits on what one request and one turn may take.",
      "$ref": "#/$defs/LimitsConfig",
      "default": {
        "maxContextChars": 800000,
        "maxOutputTokens": 8192,
        "maxTokens": null,
        "maxStepsPerTurn": 50
      }
    },
    "pluginHooks": {
      "description": "Compaction plugins' hooks.",
      "$ref": "#/$defs/PluginHooksConfig",
      "default": {
        "timeoutMs": 5000
      }
    },
    "plugins": {
      "description": "Compaction plugins: each is asked before and after a compaction (`memory` is built in).",
      "type": "array",
      "items": {
        "$ref": "#/$defs/PluginConfig"
      },
      "default": [
        {
          "name": "memory",
          "builtin": true,
          "command": null,
          "args": []
        }
      ]
    },
    "permissions": {
      "description": "Whether the shell and file writes run without asking.",
      "$ref": "#/$defs/PermissionsConfig",
      "default": {
        "shell": "ask",
        "write": "ask"
      }
    },
    "instructions": {
      "description": "Extra instructions appended to the system prompt.",
      "type": [
        "string",
        "null"
      ],
      "default": null
    },
    "profiles": {
      "description": "Named provider settings; `activeProfile` (or `--profile`) selects one.",
      "type": "object",
      "additionalProperties": {
        "$ref": "#/$defs/ProfileConfig"
      },
      "default": {}
    },
    "activeProfile": {
      "description": "The profile in force (a key of `profiles`); `--profile` overrides it.",
      "type": [
        "string",
        "null"
      ],
      "default": null
    },
    "mcpServers": {
      "description": "MCP tool servers, by name.",
      "type": "object",
      "additionalProperties": {
        "$ref": "#/$defs/McpServerConfig"
      },
      "default": {}
    },
    "mcp": {
      "description": "How much of a request MCP tools may take.",
      "$ref": "#/$defs/McpConfig",
      "default": {
        "maxCatalogTokens": null
      }
    },
    "telemetry": {
      "description": "Traces to a team's trace store.",
      "$ref": "#/$defs/TelemetryConfig",
      "default": {
        "otlp": {
          "endpoint": null,
          "protocol": "http/protobuf",
          "headers": {},
          "content": false,
          "maxContentBytes": 65536,
          "timeoutMs": 5000,
          "serviceName": "alisio"
        }
      }
    },
    "prices": {
      "description": "Prices (USD per million tokens) by model name or pattern (`*`), over the table shipped with\nAlisio; a model named here is priced from here only.",
      "type": "object",
      "additionalProperties": {
        "$ref": "#/$defs/PriceConfig"
      },
      "default": {}
    },
    "cacheTtlSeconds": {
      "description": "How long a provider keeps a prompt cache: a call after a longer gap whose prefix was intact\nbut not reused is a miss of cause `expired`.",
      "type": "integer",
      "format": "uint64",
      "minimum": 1,
      "maximum": 86400,
      "default": 300
    },
    "archives": {
      "description": "Team archives (PostgreSQL) that `alisio push` sends sessions to, by name.",
      "type": "object",
      "additionalProperties": {
        "$ref": "#/$defs/ArchiveConfig"
      },
      "default": {}
    }
  },
  "$defs": {
    "ProviderFile": {
      "description": "The provider as written in the file (`provider`).",
      "type": "object",
      "properties": {
        "id": {
          "description": "A name for the provider, used in `cacheCompact.models` entries (`id/model`).",
          "type": "string",
          "default": "local"
        },
        "baseUrl": {
          "description": "The server's OpenAI- or Anthropic-compatible base URL.",
          "type": "string",
          "default": "http://127.0.0.1:8080/v1"
        },
        "model": {
          "description": "The model id sent with each request.",
          "type": "string",
          "default": "default"
        },
        "apiKeyEnv": {
          "description": "The environment variable holding the API key (never stored, never seen by tools).",
          "type": "string",
          "default": "OPENAI_API_KEY"
        },
        "api": {
          "$ref": "#/$defs/Api",
          "default": "chat"
        },
        "contextWindow": {
          "description": "The window in tokens; first of the window's sources (then the profile's, then the server's report).",
          "type": [
            "integer",
            "null"
          ],
          "format": "uint64",
          "minimum": 1,
          "default": null
        },
        "stream": {
          "description": "Stream answers over SSE (default) or wait for one JSON document.",
          "type": "boolean",
          "default": true
        },
        "timeoutMs": {
          "description": "Longest wait, in ms, for the server's first byte and between streamed chunks.",
          "type": "integer",
          "format": "uint64",
          "minimum": 100,
          "maximum": 3600000,
          "default": 300000
        },
        "maxRetries": {
          "description": "Retries on 429, 5xx and connection errors, with exponential backoff.",
          "type": "integer",
          "format": "uint32",
          "minimum": 0,
          "maximum": 10,
          "default": 3
        },
        "retryBaseMs": {
          "description": "The first retry's delay, in ms; each later one doubles it.",
          "type": "integer",
          "format": "uint64",
          "minimum": 0,
          "maximum": 60000,
          "default": 500
        },
        "cacheDiagnostics": {
          "description": "Anthropic: ask the API why the prompt cache missed (cache diagnostics: each request names\nthe previous answer's id); its stated reason is kept beside Alisio's own.",
          "type": "boolean",
          "default": false
        }
      }
    },
    "Api": {
      "description": "The wire API a provider speaks.",
      "type": "string",
      "enum": [
        "chat",
        "responses",
        "anthropic"
      ]
    },
    "CompactionConfig": {
      "type": "object",
      "properties": {
        "auto": {
          "description": "Compact automatically when the trigger fires (manual compaction works either way).",
          "type": "boolean",
          "default": true
        },
        "threshold": {
          "description": "Share of the window at which automatic compaction fires.",
          "type": "number",
          "format": "double",
          "minimum": 0.1,
          "maximum": 0.99,
          "default": 0.85
        },
        "keepTurns": {
          "description": "Recent turns kept verbatim.",
          "type": "integer",
          "format": "uint32",
          "minimum": 0,
          "maximum": 20,
          "default": 2
        },
        "maxOutputTokens": {
          "description": "The summarizer's own output budget.",
          "type": "integer",
          "format": "uint32",
          "minimum": 256,
          "maximum": 1000000,
          "default": 16000
        },
        "strategy": {
          "$ref": "#/$defs/Strategy",
          "default": "native"
        },
        "pinFiles": {
          "description": "Workspace files whose contents are pinned: read at each compaction and carried verbatim\nafter the checkpoint.",
          "type": "array",
          "items": {
            "type": "string"
          },
          "default": [
            "AGENTS.md",
            "CLAUDE.md"
          ]
        },
        "artifactTrail": {
          "description": "Add to each checkpoint, beside what the model wrote, the files the replaced messages touched\n(with their last change) and how the last commands' output ended.",
          "type": "boolean",
          "default": true
        },
        "provider": {
          "description": "The API's own compaction, for `strategy: \"provider\"`.",
          "$ref": "#/$defs/ProviderCompactionConfig",
          "default": {
            "trigger": null,
            "instructions": null,
            "clearToolUses": false,
            "clearToolUsesTrigger": null,
            "keepToolUses": 3,
            "clearAtLeast": null,
            "clearThinking": false,
            "pinsAsSystemMessage": true
          }
        }
      }
    },
    "Strategy": {
      "description": "Which compactor acts when the context fills up.",
      "type": "string",
      "enum": [
        "native",
        "cache",
        "mask",
        "hybrid",
        "prune",
        "provider"
      ]
    },
    "ProviderCompactionConfig": {
      "description": "The API's own compaction (`compaction.strategy: \"provider\"`): what each request asks the\nserver to do. Anthropic: server compaction (`compact_20260112`) and context editing\n(`clear_tool_uses_20250919`, `clear_thinking_20251015`); Responses: `context_management`\ncompaction, and `/responses/compact` for a compaction asked for by hand.",
      "type": "object",
      "properties": {
        "trigger": {
          "description": "Input tokens at which the server compacts; `null`: `compaction.threshold` of the window in\nforce (Anthropic's own minimum, 50,000, applies there).",
          "type": [
            "integer",
            "null"
          ],
          "format": "uint64",
          "minimum": 1000,
          "default": null
        },
        "instructions": {
          "description": "Anthropic: the summarization prompt, replacing the server's own; `null`: the server's.",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "clearToolUses": {
          "description": "Anthropic: clear old tool results on the server past `clearToolUsesTrigger` input tokens.",
          "type": "boolean",
          "default": false
        },
        "clearToolUsesTrigger": {
          "description": "Input tokens at which tool results are cleared; `null`: the server's default (100,000).",
          "type": [
            "integer",
            "null"
          ],
          "format": "uint64",
          "minimum": 1000,
          "default": null
        },
        "keepToolUses": {
          "description": "Most recent tool uses kept when clearing.",
          "type": "integer",
          "format": "uint32",
          "minimum": 0,
          "maximum": 1000,
          "default": 3
        },
        "clearAtLeast": {
          "description": "Clear at least this many input tokens each time, so a cleared prefix is worth its cache.",
          "type": [
            "integer",
            "null"
          ],
          "format": "uint64",
          "minimum": 1,
          "default": null
        },
        "clearThinking": {
          "description": "Anthropic: clear thinking blocks of earlier turns (`clear_thinking_20251015`).",
          "type": "boolean",
          "default": false
        },
        "pinsAsSystemMessage": {
          "description": "Anthropic: after a server compaction, restate the pins as a system message after the\ncompaction (mid-conversation system messages) instead of user text.",
          "type": "boolean",
          "default": true
        }
      }
    },
    "CacheCompactConfig": {
      "type": "object",
      "properties": {
        "threshold": {
          "description": "Percent of the context limit at which the cache strategy trips.",
          "type": "number",
          "format": "double",
          "minimum": 1,
          "maximum": 99,
          "default": 68.0
        },
        "models": {
          "description": "`providerID/modelID` entries the cache strategy applies to; empty: every model.",
          "type": "array",
          "items": {
            "type": "string"
          },
          "default": []
        },
        "summaryMaxTokens": {
          "description": "The hand-off summary's output budget.",
          "type": "integer",
          "format": "uint32",
          "minimum": 16,
          "maximum": 1000000,
          "default": 1200
        },
        "contextLimit": {
          "description": "The context limit when the provider reports no window.",
          "type": "integer",
          "format": "uint64",
          "minimum": 1024,
          "maximum": 100000000,
          "default": 131072
        },
        "autoResume": {
          "description": "After the cut, continue the turn with `resumePrompt`.",
          "type": "boolean",
          "default": true
        },
        "abortOnTrip": {
          "description": "When the trip fires, answer the step's pending tool calls as not run.",
          "type": "boolean",
          "default": true
        },
        "disablePrune": {
          "description": "At the hard limit, never reduce tool outputs before the cut (that would break the cached prefix).",
          "type": "boolean",
          "default": true
        },
        "debug": {
          "description": "Log each trip decision and the summary request's cache figures.",
          "type": "boolean",
          "default": false
        },
        "resumePrompt": {
          "description": "The user message `autoResume` sends after a cut.",
          "type": "string",
          "default": "Continue the task from the summary above."
        }
      }
    },
    "LimitsConfig": {
      "type": "object",
      "properties": {
        "maxContextChars": {
          "description": "The hard limit on a request's conversation characters (the tool catalog not counted).",
          "type": "integer",
          "format": "uint64",
          "minimum": 4000,
          "maximum": 1000000000,
          "default": 800000
        },
        "maxOutputTokens": {
          "description": "The most tokens one answer may have.",
          "type": "integer",
          "format": "uint32",
          "minimum": 1,
          "maximum": 1000000,
          "default": 8192
        },
        "maxTokens": {
          "description": "A token budget per turn; `null`: none.",
          "type": [
            "integer",
            "null"
          ],
          "format": "uint64",
          "minimum": 1,
          "default": null
        },
        "maxStepsPerTurn": {
          "description": "The most model calls in one turn.",
          "type": "integer",
          "format": "uint32",
          "minimum": 1,
          "maximum": 10000,
          "default": 50
        }
      }
    },
    "PluginHooksConfig": {
      "type": "object",
      "properties": {
        "timeoutMs": {
          "description": "How long a plugin's hook may take, in ms, before it is skipped.",
          "type": "integer",
          "format": "uint64",
          "minimum": 1,
          "maximum": 600000,
          "default": 5000
        }
      }
    },
    "PluginConfig": {
      "type": "object",
      "properties": {
        "name": {
          "description": "The plugin's name (`memory` for the built-in one).",
          "type": "string"
        },
        "builtin": {
          "description": "A plugin shipped with Alisio (no command).",
          "type": "boolean",
          "default": false
        },
        "command": {
          "description": "The plugin's executable (it speaks JSON on stdin/stdout).",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "args": {
          "description": "Its arguments.",
          "type": "array",
          "items": {
            "type": "string"
          },
          "default": []
        }
      },
      "required": [
        "name"
      ]
    },
    "PermissionsConfig": {
      "type": "object",
      "properties": {
        "shell": {
          "$ref": "#/$defs/Permission",
          "default": "ask"
        },
        "write": {
          "$ref": "#/$defs/Permission",
          "default": "ask"
        }
      }
    },
    "Permission": {
      "description": "Whether a tool runs without asking, after asking, or never.",
      "type": "string",
      "enum": [
        "allow",
        "ask",
        "deny"
      ]
    },
    "ProfileConfig": {
      "description": "A connection profile: the provider values it sets (absent ones keep `provider`'s).",
      "type": "object",
      "properties": {
        "baseUrl": {
          "description": "The server's base URL.",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "model": {
          "description": "The model id.",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "api": {
          "description": "The wire API.",
          "anyOf": [
            {
              "$ref": "#/$defs/Api"
            },
            {
              "type": "null"
            }
          ],
          "default": null
        },
        "apiKeyEnv": {
          "description": "The environment variable holding the key; `null` sends none.",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "contextWindow": {
          "description": "The second source of the window: after `provider.contextWindow`, before the server's report.",
          "type": [
            "integer",
            "null"
          ],
          "format": "uint64",
          "minimum": 1,
          "default": null
        }
      }
    },
    "McpServerConfig": {
      "description": "One MCP server: a child process speaking stdio (`command`) or a streamable-HTTP endpoint (`url`).",
      "type": "object",
      "properties": {
        "command": {
          "description": "The stdio server's executable.",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "args": {
          "description": "Its arguments.",
          "type": "array",
          "items": {
            "type": "string"
          },
          "default": []
        },
        "env": {
          "description": "Environment variables for it (the provider's key is never passed).",
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "default": {}
        },
        "cwd": {
          "description": "Its working directory (default: the one Alisio runs in).",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "url": {
          "description": "A streamable-HTTP server's endpoint.",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "headers": {
          "description": "Header values, literal or `env:NAME` (read from the environment when the server starts).",
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "default": {}
        },
        "enabled": {
          "description": "Start it (false keeps the entry but offers none of its tools).",
          "type": "boolean",
          "default": true
        },
        "startupTimeoutMs": {
          "description": "How long it may take to start and list its tools, in ms.",
          "type": "integer",
          "format": "uint64",
          "minimum": 100,
          "maximum": 600000,
          "default": 10000
        },
        "toolTimeoutMs": {
          "description": "How long one of its tool calls may take, in ms.",
          "type": "integer",
          "format": "uint64",
          "minimum": 100,
          "maximum": 3600000,
          "default": 120000
        },
        "permission": {
          "$ref": "#/$defs/Permission",
          "default": "ask"
        }
      }
    },
    "McpConfig": {
      "description": "The MCP tool catalog's budget: past it, tools are deferred behind `tool_search`.",
      "type": "object",
      "properties": {
        "maxCatalogTokens": {
          "description": "The most tokens MCP tools may take in a request; `null`: a tenth of the window in force.",
          "type": [
            "integer",
            "null"
          ],
          "format": "uint64",
          "minimum": 0,
          "default": null
        }
      }
    },
    "TelemetryConfig": {
      "type": "object",
      "properties": {
        "otlp": {
          "$ref": "#/$defs/OtlpConfig",
          "default": {
            "endpoint": null,
            "protocol": "http/protobuf",
            "headers": {},
            "content": false,
            "maxContentBytes": 65536,
            "timeoutMs": 5000,
            "serviceName": "alisio"
          }
        }
      }
    },
    "OtlpConfig": {
      "description": "An OTLP/HTTP trace endpoint; without `endpoint` nothing is exported.",
      "type": "object",
      "properties": {
        "endpoint": {
          "description": "The OTLP/HTTP traces endpoint; none: nothing is exported.",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "protocol": {
          "description": "The only protocol spoken: `http/protobuf`.",
          "type": "string",
          "default": "http/protobuf"
        },
        "headers": {
          "description": "Header values, literal or `env:NAME` (read from the environment).",
          "type": "object",
          "additionalProperties": {
            "type": "string"
          },
          "default": {}
        },
        "content": {
          "description": "Attach message content (redacted) to the spans.",
          "type": "boolean",
          "default": false
        },
        "maxContentBytes": {
          "description": "The most bytes of one content attribute; longer content is cut and marked truncated.",
          "type": "integer",
          "format": "uint",
          "minimum": 1024,
          "maximum": 67108864,
          "default": 65536
        },
        "timeoutMs": {
          "description": "How long one export may take (an answer later than this is a failure, reported once).",
          "type": "integer",
          "format": "uint64",
          "minimum": 100,
          "maximum": 120000,
          "default": 5000
        },
        "serviceName": {
          "description": "`service.name` of the exported traces.",
          "type": "string",
          "default": "alisio"
        }
      }
    },
    "PriceConfig": {
      "description": "One model's prices, USD per million tokens.",
      "type": "object",
      "properties": {
        "input": {
          "description": "USD per million input tokens.",
          "type": "number",
          "format": "double",
          "minimum": 0
        },
        "cachedInput": {
          "description": "Input read from the prompt cache (default: the input price).",
          "type": [
            "number",
            "null"
          ],
          "format": "double",
          "minimum": 0
        },
        "cacheWrite": {
          "description": "Input written to the 5-minute prompt cache (default: the input price).",
          "type": [
            "number",
            "null"
          ],
          "format": "double",
          "minimum": 0
        },
        "cacheWrite1h": {
          "description": "Input written to the 1-hour prompt cache (default: the 5-minute write price).",
          "type": [
            "number",
            "null"
          ],
          "format": "double",
          "minimum": 0
        },
        "output": {
          "description": "USD per million output tokens.",
          "type": "number",
          "format": "double",
          "minimum": 0
        },
        "since": {
          "description": "`YYYY-MM-DD`: the price applies to calls from that day on (default: always).",
          "type": [
            "string",
            "null"
          ]
        },
        "longContext": {
          "description": "Calls whose prompt is above `above` tokens are priced whole at these rates.",
          "anyOf": [
            {
              "$ref": "#/$defs/LongContextConfig"
            },
            {
              "type": "null"
            }
          ]
        },
        "bands": {
          "description": "Any number of prompt-length bands: a call is priced whole at the rates of the highest band\nits prompt is above.",
          "type": "array",
          "items": {
            "$ref": "#/$defs/LongContextConfig"
          }
        }
      },
      "additionalProperties": false,
      "required": [
        "input",
        "output"
      ]
    },
    "LongContextConfig": {
      "type": "object",
      "properties": {
        "above": {
          "description": "Prompt tokens above which the whole call is priced at these rates.",
          "type": "integer",
          "format": "uint64",
          "minimum": 1
        },
        "input": {
          "description": "USD per million input tokens.",
          "type": "number",
          "format": "double",
          "minimum": 0
        },
        "cachedInput": {
          "description": "USD per million tokens read from the cache (default: the input price).",
          "type": [
            "number",
            "null"
          ],
          "format": "double",
          "minimum": 0
        },
        "cacheWrite": {
          "description": "USD per million tokens written to the 5-minute cache (default: the input price).",
          "type": [
            "number",
            "null"
          ],
          "format": "double",
          "minimum": 0
        },
        "cacheWrite1h": {
          "description": "USD per million tokens written to the 1-hour cache (default: the 5-minute price).",
          "type": [
            "number",
            "null"
          ],
          "format": "double",
          "minimum": 0
        },
        "output": {
          "description": "USD per million output tokens.",
          "type": "number",
          "format": "double",
          "minimum": 0
        }
      },
      "additionalProperties": false,
      "required": [
        "above",
        "input",
        "output"
      ]
    },
    "ArchiveConfig": {
      "description": "One archive (`archives.NAME`).",
      "type": "object",
      "properties": {
        "url": {
          "description": "`postgres://user@host:port/database`, without a password (see `passwordEnv`).",
          "type": "string",
          "default": ""
        },
        "passwordEnv": {
          "description": "The environment variable that holds the password; it is never stored.",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "redact": {
          "description": "Redact secrets (the secret catalog) before anything leaves this machine.",
          "type": "boolean",
          "default": true
        },
        "machine": {
          "description": "This machine's name in the archive; `null`: its host name.",
          "type": [
            "string",
            "null"
          ],
          "default": null
        },
        "user": {
          "description": "Whose sessions these are; `null`: the login name (`$USER`).",
          "type": [
            "string",
            "null"
          ],
          "default": null
        }
      }
    }
  }
} as const;
