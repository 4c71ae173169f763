// The session actions of the window — compact (or propose), undo, acknowledge, send a turn, stop —
// each going through `feedback.act` so progress, errors and the refresh are handled once.
import { api } from "../api";
import type { CompactOutcome, Fidelity, Strategy } from "../bindings";
import { parseSlashCompact } from "../logic";
import type { LiveState } from "./engineEvents";
import type { Feedback } from "./useAction";

export type DialogState = { kind: "compact" } | { kind: "proposal"; proposal: number; text: string; partial: boolean; fidelity: Fidelity | null } | { kind: "settings" } | { kind: "import"; path?: string } | { kind: "export" } | { kind: "proxy" } | null;

export function useActions(deps: {
  selected: string | null;
  setSelected: (id: string) => void;
  loadSessions: () => Promise<void>;
  feedback: Feedback;
  live: LiveState;
  updateLive: (patch: Partial<LiveState> | ((current: LiveState) => Partial<LiveState>)) => void;
  setDialog: (dialog: DialogState) => void;
}) {
  const { selected, setSelected, loadSessions, feedback, live, updateLive, setDialog } = deps;
  const compact = (focus: string | null, preview: boolean, strategy?: Strategy) => {
    if (!selected) return;
    setDialog(null);
    feedback.act(() => api.compactionCompact({ session: selected, focus, preview, strategy }), {
      busy: "Compacting…",
      notice: (outcome: CompactOutcome) => {
        switch (outcome.outcome) {
          case "proposed": {
            const text = JSON.stringify(outcome.checkpoint.sections ?? { text: outcome.checkpoint.text }, null, 2);
            setDialog({ kind: "proposal", proposal: outcome.proposal, text, partial: outcome.partial, fidelity: outcome.fidelity });
            return null;
          }
          case "skipped":
            return `Nothing compacted: ${outcome.reason}`;
          case "failed":
            feedback.setError(`Compaction failed: ${outcome.error}`);
            return null;
          default:
            return `Compaction #${outcome.compaction} applied${outcome.partial ? " (partial checkpoint)" : ""}`;
        }
      },
    });
  };

  const undo = () =>
    selected && feedback.act(() => api.compactionUndo({ session: selected }), { notice: (ids) => `Reverted ${ids.map((i) => `#${i}`).join(", ")}` });

  const acknowledge = () =>
    selected &&
    feedback.act(() => api.sessionsRecover({ session: selected }), {
      notice: (report) => `Recorded "result unknown" for ${report.acknowledged.map((e) => e.callId).join(", ") || "nothing"}`,
    });

  const send = async (text: string) => {
    const slash = parseSlashCompact(text);
    if (slash) return compact(slash.focus, false);
    updateLive({ streaming: "", running: selected ?? "new", progress: "Waiting for the model…" });
    try {
      const id = await api.turnsStart({ session: selected, prompt: text });
      // The turn may already have finished (its event can arrive before this answer).
      updateLive((current) => (current.running !== null ? { running: id } : {}));
      if (id !== selected) setSelected(id);
      loadSessions();
    } catch (e) {
      updateLive({ running: null, progress: null });
      feedback.fail(e);
    }
  };

  const stop = () => {
    if (live.running && live.running !== "new") api.turnsCancel({ session: live.running }).catch(feedback.fail);
  };

  return { compact, undo, acknowledge, send, stop };
}
