// Compare (Ctrl+7): the shown session beside another — a fork beside its source by default —
// aligned message by message with the first divergence marked, and what each cost and did.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { AlignedMessage, SessionDiff, SessionSummary, SessionTotals } from "../bindings";
import { errorMessage } from "../events";
import { compareRows, excerpt } from "../logic";

export function ComparePane(props: {
  session: string;
  forkedFrom: string | null;
  /** The other session asked for (two picked in the Library view); else the source, else the first. */
  compareWith?: string | null;
  sessions: SessionSummary[];
  onOpen: (id: string, seq: number) => void;
}) {
  const others = props.sessions.filter((s) => s.id !== props.session);
  const initial = () => props.compareWith ?? props.forkedFrom ?? others[0]?.id ?? null;
  const [other, setOther] = useState<string | null>(initial);
  const [diff, setDiff] = useState<SessionDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [showShared, setShowShared] = useState(false);
  useEffect(() => setOther(initial()), [props.session, props.forkedFrom, props.compareWith]);
  useEffect(() => {
    setDiff(null);
    setError(null);
    if (!other) return;
    // The source on the left, as a fork is read against what it came from.
    const [a, b] = other === props.forkedFrom ? [other, props.session] : [props.session, other];
    api.forksDiff({ a, b, messages: true }).then(setDiff, (e) => setError(errorMessage(e)));
  }, [props.session, other]);
  const [a, b] = other === props.forkedFrom ? [other, props.session] : [props.session, other];
  const title = (id: string | null) => props.sessions.find((s) => s.id === id)?.title ?? id ?? "";
  return (
    <div class="compare" data-testid="compare-view">
      <div class="row">
        <label>
          Compare with{" "}
          <select value={other ?? ""} onChange={(e) => setOther((e.target as HTMLSelectElement).value || null)} data-testid="compare-with">
            {others.map((s) => (
              <option value={s.id} key={s.id}>
                {s.id === props.forkedFrom ? "(its source) " : ""}
                {s.title}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error && <div class="error">{error}</div>}
      {!other && <p class="muted">There is no other session to compare with.</p>}
      {diff && (
        <>
          <p data-testid="compare-summary">
            <strong>{diff.sharedMessages}</strong> message{diff.sharedMessages === 1 ? "" : "s"} shared
            {diff.firstDivergence ? ", then they diverge" : "; no divergence"}.
          </p>
          <Totals a={diff.a} b={diff.b} titles={[title(a), title(b)]} />
          {diff.messages && (
            <Aligned
              a={diff.messages[0]}
              b={diff.messages[1]}
              shared={diff.sharedMessages}
              showShared={showShared}
              onShowShared={() => setShowShared(true)}
              onOpen={(side, seq) => props.onOpen(side === 0 ? a! : b!, seq)}
            />
          )}
        </>
      )}
    </div>
  );
}

function Totals(props: { a: SessionTotals; b: SessionTotals; titles: [string, string] }) {
  const rows = compareRows(props.a, props.b);
  const widest = Math.max(1, ...rows.filter((r) => r.numeric).flatMap((r) => [r.a as number, r.b as number]));
  return (
    <table class="calls compare-table" data-testid="compare-table">
      <thead>
        <tr>
          <th />
          <th title={props.titles[0]}>A · {excerpt(props.titles[0], 32)}</th>
          <th title={props.titles[1]}>B · {excerpt(props.titles[1], 32)}</th>
          <th>B − A</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.label} data-testid="compare-row">
            <td>{r.label}</td>
            <td>
              {r.text[0]}
              {r.numeric && r.bar && <span class="compare-bar a" style={{ width: `${(60 * (r.a as number)) / widest}px` }} />}
            </td>
            <td>
              {r.text[1]}
              {r.numeric && r.bar && <span class="compare-bar b" style={{ width: `${(60 * (r.b as number)) / widest}px` }} />}
            </td>
            <td class={r.delta.startsWith("+") ? "delta up" : r.delta.startsWith("−") ? "delta down" : "delta"}>{r.delta}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Aligned(props: {
  a: AlignedMessage[];
  b: AlignedMessage[];
  shared: number;
  showShared: boolean;
  onShowShared: () => void;
  onOpen: (side: 0 | 1, seq: number) => void;
}) {
  const length = Math.max(props.a.length, props.b.length);
  // The shared prefix folds to its last three messages until asked for.
  const from = props.showShared ? 0 : Math.max(0, props.shared - 3);
  const indexes = Array.from({ length: length - from }, (_, i) => from + i);
  const cell = (m: AlignedMessage | undefined, side: 0 | 1) =>
    m ? (
      <div class={`aligned-msg role-${m.role}${m.summary ? " kind-checkpoint" : ""}`} onClick={() => props.onOpen(side, m.seq)} title="Open at this message">
        <span class="muted">
          #{m.seq} {m.role}
        </span>{" "}
        {excerpt(m.text.replace(/\s+/g, " "), 240)}
      </div>
    ) : (
      <div class="aligned-msg muted">(ended)</div>
    );
  return (
    <div class="aligned" data-testid="aligned">
      {from > 0 && (
        <button class="link" onClick={props.onShowShared} data-testid="show-shared">
          {from} earlier shared message{from === 1 ? "" : "s"} — show
        </button>
      )}
      {indexes.map((i) => (
        <div class={`aligned-row${i < props.shared ? " shared" : ""}${i === props.shared ? " divergence" : ""}`} key={i} data-testid={i === props.shared ? "first-divergence" : "aligned-row"}>
          {i === props.shared && <div class="divergence-label">first divergence</div>}
          {cell(props.a[i], 0)}
          {cell(props.b[i], 1)}
        </div>
      ))}
    </div>
  );
}
