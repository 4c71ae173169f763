// Export…: the session written as Markdown, HTML, JSON or ATIF, or sent as OTLP traces, after a
// review of what will be redacted.
import type { Ref } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { ExportFormat, ExportOutcome, ExportReview } from "../bindings";
import { Dialog } from "../components";
import { errorMessage } from "../events";
import { extensionOf } from "../logic";

/** The formats offered, as the select lists them. */
export const FORMATS: Array<[ExportFormat, string]> = [
  ["markdown", "Markdown — a readable transcript"],
  ["html", "HTML — one self-contained page, readable offline"],
  ["json", "JSON — stored view, compactions and ledger (v1)"],
  ["atif", "ATIF — an agent trajectory (trajectory.json) other tools read"],
  ["otlp", "OTLP traces — to telemetry.otlp.endpoint"],
];

/** The format picker both export dialogs show. */
export function FormatSelect(props: {
  value: ExportFormat;
  onChange: (format: ExportFormat) => void;
  disabled?: boolean;
  selectRef?: Ref<HTMLSelectElement>;
  testId: string;
}) {
  return (
    <label>
      Format
      <select ref={props.selectRef} value={props.value} disabled={props.disabled} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value as ExportFormat)} data-testid={props.testId}>
        {FORMATS.map(([value, label]) => (
          <option value={value}>{label}</option>
        ))}
      </select>
    </label>
  );
}

/**
 * Export… (Ctrl+E): the session as Markdown, one self-contained HTML page, or JSON written to a
 * file, or sent as OTLP traces. Before anything is written the review lists what will be redacted
 * (kind, where, a masked preview): a finding can be un-marked as a false positive, and more can be
 * added (a literal string, or a regex written /…/); the export then writes exactly that.
 */
export function ExportDialog(props: { session: string; title: string; onClose: () => void }) {
  const [format, setFormat] = useState<ExportFormat>("markdown");
  const [redact, setRedact] = useState(true);
  const [path, setPath] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ExportOutcome | null>(null);
  const [error, setError] = useState<string | null>(null);
  const redaction = useRedaction(props.session, format, redact, setError);
  const { extra, unmarked } = redaction;
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setResult(
        await api.exportSession({
          session: props.session,
          format,
          path: format === "otlp" ? null : path.trim() || null,
          redact,
          extra: redact ? extra : [],
          unmark: redact ? [...unmarked] : [],
        }),
      );
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const extension = extensionOf(format);
  return (
    <Dialog title={`Export “${props.title}”`} onClose={props.onClose} testId="export-dialog">
      <FormatSelect value={format} onChange={setFormat} testId="export-format" />
      {format !== "otlp" && (
        <label>
          Save as
          <input value={path} onInput={(e) => setPath((e.target as HTMLInputElement).value)} placeholder={`exports/${props.session}.${extension} in Alisio's data folder`} data-testid="export-path" />
        </label>
      )}
      <label class="check">
        <input type="checkbox" checked={redact} onChange={(e) => setRedact((e.target as HTMLInputElement).checked)} data-testid="export-redact" />
        Redact secrets (API keys, tokens, private keys, passwords) as [REDACTED:kind]
      </label>
      {redact && <RedactionReview redaction={redaction} />}
      {error && <div class="error" data-testid="export-error">{error}</div>}
      {result && <div class="notice" data-testid="export-result">{result.summary}</div>}
      <div class="row">
        <button onClick={run} disabled={busy} data-testid="export-run">
          {busy ? "Exporting…" : "Export"}
        </button>
      </div>
    </Dialog>
  );
}

type Redaction = ReturnType<typeof useRedaction>;

/**
 * What the export will redact: the engine's review of the session (asked again when patterns are
 * added), the patterns added by hand, and the findings un-marked as false positives.
 */
function useRedaction(session: string, format: ExportFormat, redact: boolean, setError: (error: string | null) => void) {
  const [extra, setExtra] = useState<string[]>([]);
  const [adding, setAdding] = useState("");
  const [review, setReview] = useState<ExportReview | null>(null);
  const [unmarked, setUnmarked] = useState<Set<number>>(new Set());
  useEffect(() => {
    if (!redact) return;
    let current = true;
    api
      .exportReview({ session, format, path: null, redact: true, extra })
      .then((r) => {
        if (!current) return;
        setReview(r);
        setUnmarked(new Set());
      })
      .catch((e) => current && setError(errorMessage(e)));
    return () => {
      current = false;
    };
  }, [session, extra, redact]);
  const add = () => {
    const pattern = adding.trim();
    if (!pattern || extra.includes(pattern)) return;
    setExtra([...extra, pattern]);
    setAdding("");
  };
  const toggle = (n: number) =>
    setUnmarked((u) => {
      const next = new Set(u);
      if (next.has(n)) next.delete(n);
      else next.add(n);
      return next;
    });
  return { extra, setExtra, adding, setAdding, add, review, unmarked, toggle };
}

/** The review: patterns to add, the ones added, and each finding with its un-mark box. */
function RedactionReview(props: { redaction: Redaction }) {
  const { extra, setExtra, adding, setAdding, add, review, unmarked, toggle } = props.redaction;
  return (
    <div class="review" data-testid="export-review">
      <div class="row">
        <input
          value={adding}
          onInput={(e) => setAdding((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => e.key === "Enter" && add()}
          placeholder="also redact: a word, or /a regex/"
          data-testid="export-extra"
        />
        <button class="secondary" onClick={add} disabled={!adding.trim()} data-testid="export-extra-add">
          Add
        </button>
      </div>
      {extra.map((p) => (
        <span class="chip" data-testid="export-extra-chip">
          {p}{" "}
          <button class="link" aria-label={`Stop redacting ${p}`} onClick={() => setExtra(extra.filter((x) => x !== p))}>
            ×
          </button>
        </span>
      ))}
      <div class="small muted" data-testid="export-review-summary">
        {review === null ? "Looking for secrets…" : `${review.summary}${unmarked.size ? `; ${unmarked.size} un-marked` : ""}`}
      </div>
      {review && review.findings.length > 0 && (
        <ul class="findings">
          {review.findings.slice(0, 500).map((f, n) => (
            <li data-testid="export-finding">
              <label class="check">
                <input type="checkbox" checked={!unmarked.has(n)} onChange={() => toggle(n)} />
                <code>{f.kind}</code> in {f.where}: <code>{f.preview}</code>
              </label>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
