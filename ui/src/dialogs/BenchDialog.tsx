// Compare strategies…: the compaction bake-off (`alisio bench compaction`) on the session shown —
// the arms to run, where to compact, then what each arm kept and cost, as a table and a chart.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { BakeOff } from "../bindings";
import { Dialog } from "../components";
import { errorMessage } from "../events";
import { armName, benchArms, benchBusyText, benchRequest, judgeProfiles, type BenchForm } from "../logic";
import { BenchResults } from "../panes/BenchResults";

/**
 * Forks the session at the point chosen, compacts each fork under each arm (the configured model
 * summarizes for native, cache and hybrid), asks every arm the same probes and removes the forks:
 * the session itself is never changed. The engine offers no way to stop it from the window, so Run
 * stays disabled until it ends.
 */
export function BenchDialog(props: { session: string; imported: boolean; onClose: () => void }) {
  const arms = benchArms(props.imported);
  const [form, setForm] = useState<BenchForm>({ strategies: arms, point: "last", at: "", every: "10" });
  const [busy, setBusy] = useState<string | null>(null);
  const [result, setResult] = useState<BakeOff | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [profiles, setProfiles] = useState<string[]>([]);
  const open = useRef(true);
  useEffect(() => {
    open.current = true;
    // "After message #" starts at the last message.
    api.viewsStored({ session: props.session, limit: 1 }).then(
      (v) => open.current && setForm((f) => (f.at === "" ? { ...f, at: String(v.messages[v.messages.length - 1]?.seq ?? "") } : f)),
      () => {},
    );
    api.configGet({}).then((c) => open.current && setProfiles(judgeProfiles(c.effective)), () => {});
    return () => {
      open.current = false;
    };
  }, [props.session]);
  const set = (change: Partial<BenchForm>) => setForm((f) => ({ ...f, ...change }));
  const toggle = (arm: string, on: boolean) => set({ strategies: on ? [...form.strategies, arm] : form.strategies.filter((a) => a !== arm) });
  const built = benchRequest(props.session, form);
  const run = async () => {
    if (busy || "error" in built) return;
    setBusy(benchBusyText(built.request.strategies ?? []));
    setError(null);
    try {
      const bakeOff = await api.benchCompaction(built.request);
      if (open.current) setResult(bakeOff);
    } catch (e) {
      if (open.current) setError(errorMessage(e));
    } finally {
      if (open.current) setBusy(null);
    }
  };
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <Dialog title="Compare compaction strategies" onClose={props.onClose} testId="bench-dialog">
      <p class="muted">
        Forks this session, compacts each fork with each strategy, asks every one the same probes (files, instructions, errors, the task) and removes the forks: the
        session itself is never changed. The summarizer is the configured model, so this can take a while.
      </p>
      <fieldset class="card" disabled={!!busy}>
        <legend>Strategies</legend>
        <div class="bench-arms">
          {arms.map((arm, i) => (
            <label class="check" key={arm}>
              <input type="checkbox" autoFocus={i === 0} checked={form.strategies.includes(arm)} onChange={(e) => toggle(arm, (e.target as HTMLInputElement).checked)} data-testid={`bench-check-${arm}`} />{" "}
              {armName(arm)}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset class="card" disabled={!!busy} role="radiogroup" aria-label="Where to compact">
        <legend>Compact</legend>
        <label class="check">
          <input type="radio" name="bench-point" checked={form.point === "last"} onChange={() => set({ point: "last" })} data-testid="bench-point-last" /> after the last message
        </label>
        <label class="check">
          <input type="radio" name="bench-point" checked={form.point === "at"} onChange={() => set({ point: "at" })} data-testid="bench-point-at" /> after message #
          <input type="number" min={1} class="bench-number" value={form.at} aria-label="Message number" onInput={(e) => set({ point: "at", at: value(e) })} data-testid="bench-at" />
        </label>
        <label class="check">
          <input type="radio" name="bench-point" checked={form.point === "every"} onChange={() => set({ point: "every" })} data-testid="bench-point-every" /> every
          <input type="number" min={1} class="bench-number" value={form.every} aria-label="Every N messages" onInput={(e) => set({ point: "every", every: value(e) })} data-testid="bench-every" />{" "}
          messages
        </label>
      </fieldset>
      <JudgeSelect profiles={profiles} value={form.judge ?? ""} disabled={!!busy} onChange={(judge) => set({ judge })} />
      <div class="row">
        <button onClick={run} disabled={!!busy || "error" in built} aria-busy={!!busy} data-testid="bench-run">
          {busy ? "Comparing…" : "Run"}
        </button>
        <button class="secondary" onClick={props.onClose}>
          Close
        </button>
      </div>
      {"error" in built && <div class="muted small" data-testid="bench-form-error">{built.error}</div>}
      {busy && (
        <div class="muted" role="status" data-testid="bench-busy">
          {busy}. It runs to the end even if this dialog is closed.
        </div>
      )}
      {error && <div class="error" role="alert">{error}</div>}
      {result && !busy && <BenchResults arms={result.arms} />}
    </Dialog>
  );
}

/** The judge: a profile whose model vouches for what is not a fact; shown only when there are profiles. */
function JudgeSelect(props: { profiles: string[]; value: string; disabled: boolean; onChange: (judge: string) => void }) {
  if (props.profiles.length === 0) return null;
  return (
    <label class="card" data-testid="bench-judge-row">
      Judge, for what is not a fact (constraints, the request) when the exact check misses it:{" "}
      <select value={props.value} disabled={props.disabled} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)} data-testid="bench-judge">
        <option value="">none — exact checks only</option>
        {props.profiles.map((p) => (
          <option key={p} value={p}>
            profile {p}
          </option>
        ))}
      </select>
    </label>
  );
}
