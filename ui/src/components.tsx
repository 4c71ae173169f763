// Presentational pieces of the window: message cards, checkpoint cards, the context meter, diffs.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { CHECKPOINT_SECTIONS, PINNED_HEADING, type Checkpoint, type CompactionView, type ContextMeter, type Fidelity, type Missing, type StoredMessage, type DiffLine, type TrimmedDiff, type WireItem } from "./bindings";
import { fidelityLabel, formatChars, formatTokens, meterLimitLabel, preview } from "./logic";

export function Collapsible(props: { text: string; testId?: string }) {
  const [open, setOpen] = useState(false);
  const shown = open ? { text: props.text, hidden: 0 } : preview(props.text);
  return (
    <div class="collapsible">
      <pre class="content" data-testid={props.testId}>{shown.text}</pre>
      {shown.hidden > 0 && (
        <button class="link" onClick={() => setOpen(true)}>
          Show all ({formatChars(props.text.length)}, {formatChars(shown.hidden)} hidden)
        </button>
      )}
      {open && props.text.length > 1200 && (
        <button class="link" onClick={() => setOpen(false)}>
          Collapse
        </button>
      )}
    </div>
  );
}

export function Flags(props: { m: StoredMessage }) {
  const { m } = props;
  return (
    <span class="flags">
      {m.compacted && <span class="flag compacted">compacted</span>}
      {m.summary && <span class="flag summary">checkpoint</span>}
      {m.truncated && <span class="flag truncated">trimmed</span>}
      {m.uncertain && <span class="flag uncertain">uncertain</span>}
      {m.reverted && <span class="flag reverted">reverted</span>}
    </span>
  );
}

/** A checkpoint's seven sections (or its text), with the partial warning. */
export function CheckpointCard(props: { compaction: CompactionView | undefined; fallback: string }) {
  const c = props.compaction;
  const checkpoint: Checkpoint = c?.checkpoint ?? {};
  const reports = Array.isArray(c?.pluginReports) ? (c?.pluginReports as Array<Record<string, unknown>>) : [];
  return (
    <div class="checkpoint" data-testid="checkpoint-card">
      <div class="checkpoint-head">
        <strong>{c?.reason === "cache" ? "Prior work summary" : "Checkpoint"}</strong>
        {c && (
          <span class="muted">
            #{c.id} · {c.reason}
            {c.focus ? ` · focus: ${c.focus}` : ""} · {c.summarizedMessages} messages → {formatChars(c.checkpointChars)}
          </span>
        )}
      </div>
      {c?.fidelity && (
        <div class="muted small" data-testid="checkpoint-fidelity" title={c.fidelity.missing.map((m) => `${m.kind}: ${m.value} — ${m.why}`).join("\n")}>
          Fidelity {fidelityLabel(c.fidelity)}
          {c.fidelity.missing.length > 0 && ` · missing: ${c.fidelity.missing.map((m) => m.value).join(", ")}`}
        </div>
      )}
      {c?.partial && (
        <div class="warning" data-testid="partial-warning">
          Partial checkpoint: the summary was cut by its output budget, so later details may be missing. Consider raising
          <code> compaction.maxOutputTokens</code>.
        </div>
      )}
      {checkpoint.sections ? (
        <dl class="sections">
          {CHECKPOINT_SECTIONS.filter(([key]) => checkpoint.sections && key in checkpoint.sections).map(([key, heading]) => {
            const value = checkpoint.sections?.[key];
            return (
              <div class="section" data-testid={`section-${key}`} key={key}>
                <dt>{heading}</dt>
                <dd>{Array.isArray(value) ? <ul>{value.map((v) => <li>{v}</li>)}</ul> : <p>{value}</p>}</dd>
              </div>
            );
          })}
        </dl>
      ) : (
        <Collapsible text={checkpoint.text ?? props.fallback} />
      )}
      {checkpoint.pluginFields && Object.keys(checkpoint.pluginFields).length > 0 && (
        <div class="plugin-fields">
          <span class="muted">Plugin fields</span>
          <pre class="content">{JSON.stringify(checkpoint.pluginFields, null, 2)}</pre>
        </div>
      )}
      {reports.length > 0 && (
        <ul class="reports">
          {reports.map((r) => (
            <li>
              <strong>{String(r.plugin ?? "plugin")}</strong>: {String(r.summary ?? "")}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Meter(props: { meter: ContextMeter | null }) {
  const m = props.meter;
  if (!m) return <div class="meter muted">measuring…</div>;
  // Every figure is the engine's (views_context_meter): the window draws, it decides nothing.
  const limit = meterLimitLabel(m);
  return (
    <div class="meter" data-testid="context-meter">
      <div class="meter-bar" title={`${Math.round(m.used * 100)} % of ${limit}`}>
        <div class={`meter-used ${m.over ? "over" : ""}`} style={{ width: `${m.used * 100}%` }} />
        <div class="meter-catalog" style={{ width: `${m.catalog * 100}%` }} />
        <div class="meter-threshold" style={{ left: `${m.threshold * 100}%` }} />
      </div>
      <div class="meter-legend">
        ≈ {formatTokens(m.estimatedTokens)} of {limit} · threshold {Math.round(m.threshold * 100)} % ·{" "}
        tool catalog {formatChars(m.toolCatalogChars)} · conversation {formatChars(m.reducibleChars)} / hard limit{" "}
        {formatChars(m.maxContextChars)} · strategy <span data-testid="meter-strategy">{m.strategy}</span>
      </div>
    </div>
  );
}

/** One item of a request as the model receives it. */
export function WireCard(props: { item: WireItem; index: number }) {
  const item = props.item as Record<string, unknown>;
  const role = String(item.role ?? item.type ?? "item");
  const content = item.content ?? item.output;
  const calls = Array.isArray(item.tool_calls) ? (item.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>) : [];
  // Anthropic messages are lists of blocks: text, tool_use, tool_result.
  const blocks = Array.isArray(content) ? (content as Array<Record<string, unknown>>) : [];
  const firstText = typeof content === "string" ? content : blocks.find((b) => b.type === "text")?.text;
  const pinned = typeof firstText === "string" && firstText.startsWith(PINNED_HEADING);
  return (
    <div class={`wire role-${role} ${pinned ? "kind-pinned" : ""}`} data-testid="wire-item">
      <div class="msg-head">
        <span class="role">{role}</span>
        {pinned && (
          <span class="flag pinned" data-testid="wire-pinned" title="Pins and rules files, carried verbatim after the checkpoint">
            pinned
          </span>
        )}
        <span class="muted">#{props.index}</span>
        {typeof item.tool_call_id === "string" && <span class="muted">result of {item.tool_call_id}</span>}
        {typeof item.call_id === "string" && <span class="muted">{String(item.call_id)}</span>}
      </div>
      {typeof content === "string" ? <Collapsible text={content} /> : content === undefined && calls.length === 0 ? <pre class="content">{JSON.stringify(item, null, 2)}</pre> : null}
      {calls.map((c) => (
        <div class="call">
          → <strong>{c.function.name}</strong> <span class="muted">{c.id}</span>
          <pre class="content">{c.function.arguments}</pre>
        </div>
      ))}
      {blocks.map((b) =>
        b.type === "text" ? (
          <Collapsible text={String(b.text ?? "")} />
        ) : b.type === "tool_use" ? (
          <div class="call">
            → <strong>{String(b.name)}</strong> <span class="muted">{String(b.id)}</span>
            <pre class="content">{JSON.stringify(b.input)}</pre>
          </div>
        ) : b.type === "tool_result" ? (
          <div class="call">
            <span class="muted">result of {String(b.tool_use_id)}</span>
            <Collapsible text={typeof b.content === "string" ? b.content : JSON.stringify(b.content, null, 2)} />
          </div>
        ) : (
          <pre class="content">{JSON.stringify(b, null, 2)}</pre>
        ),
      )}
    </div>
  );
}

export function DiffTable(props: { diff: TrimmedDiff }) {
  const d = props.diff;
  return (
    <div class="diff" data-testid="diff-view">
      <div class="diff-head">
        Stored original #{d.originalSeq} ({formatChars(d.originalChars)}) ↔ what the model got #{d.seq} (
        {formatChars(d.reducedChars)}) · cut {formatChars(d.cutChars)}
        {d.beyondWindowChars > 0 && ` · ${formatChars(d.beyondWindowChars)} beyond the diff window not shown`}
      </div>
      <LineTable lines={d.lines} before="Original (stored)" after="Sent to the model" />
    </div>
  );
}

/** A side-by-side line diff computed in Rust (`similar`). */
export function LineTable(props: { lines: DiffLine[]; before: string; after: string }) {
  return (
    <table class="diff-table">
      <colgroup>
        <col class="ln-col" />
        <col />
        <col class="ln-col" />
        <col />
      </colgroup>
      <thead>
        <tr>
          <th colSpan={2}>{props.before}</th>
          <th colSpan={2}>{props.after}</th>
        </tr>
      </thead>
      <tbody>
        {props.lines.map((l) =>
          l.tag === "skipped" ? (
            <tr class="skipped">
              <td colSpan={4}>⋯ {l.text}</td>
            </tr>
          ) : (
            <tr class={l.tag}>
              <td class="ln">{l.oldLine ?? ""}</td>
              <td class="old">{l.tag !== "insert" ? l.text : ""}</td>
              <td class="ln">{l.newLine ?? ""}</td>
              <td class="new">{l.tag !== "delete" ? l.text : ""}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

/** What Tab can reach in a dialog. */
const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [href], [tabindex]:not([tabindex="-1"])';

/** Tab past the last control goes back to the first, Shift+Tab before the first to the last: focus stays in the dialog. */
function keepFocusIn(e: KeyboardEvent) {
  if (e.key !== "Tab") return;
  const all = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.closest("fieldset:disabled"));
  if (all.length === 0) return;
  const [first, last] = [all[0], all[all.length - 1]];
  const at = document.activeElement;
  const wrap = e.shiftKey ? (at === first || !all.includes(at as HTMLElement) ? last : null) : at === last || !all.includes(at as HTMLElement) ? first : null;
  if (!wrap) return;
  e.preventDefault();
  wrap.focus();
}

export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; testId?: string }) {
  return (
    <div class="overlay" onKeyDown={(e) => e.key === "Escape" && props.onClose()}>
      <div class="dialog" role="dialog" aria-modal="true" aria-label={props.title} data-testid={props.testId} onKeyDown={keepFocusIn}>
        <div class="dialog-head">
          <strong>{props.title}</strong>
          <button class="link" onClick={props.onClose} aria-label="Close">
            ✕
          </button>
        </div>
        {props.children}
      </div>
    </div>
  );
}

/**
 * What a checkpoint kept of the history it replaced: the score, and each missing item with
 * why it was flagged, its messages (links when `onJump` is given) and an optional action.
 */
export function FidelityReport(props: {
  fidelity: Fidelity | null | undefined;
  onJump?: (seq: number) => void;
  action?: { label: string; run: (item: Missing) => void };
}) {
  const f = props.fidelity;
  if (!f) return null;
  return (
    <div class={`fidelity ${f.missing.length ? "has-missing" : ""}`} data-testid="fidelity">
      <span class="muted" data-testid="fidelity-score">
        Fidelity {fidelityLabel(f)}
      </span>
      {f.missing.map((item) => (
        <div class="warning small" data-testid="fidelity-missing" key={`${item.kind}-${item.value}`}>
          <strong>{item.kind}</strong> {item.value} <span class="muted">— {item.why}</span>{" "}
          {item.seqs.map((seq) =>
            props.onJump ? (
              <button class="link" onClick={() => props.onJump?.(seq)}>
                #{seq}
              </button>
            ) : (
              <span class="muted">#{seq} </span>
            ),
          )}
          {props.action && (
            <button class="link" data-testid="fidelity-add" onClick={() => props.action?.run(item)}>
              {props.action.label} ({item.section})
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
