// What a message's buttons do beyond the transcript: pin it (pins are carried verbatim right after
// every checkpoint; the inspector lists them) and fork a new session from it.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { Pin } from "../bindings";
import type { Feedback } from "./useAction";

export function useMessageActions(deps: {
  selected: string | null;
  setSelected: (id: string) => void;
  loadSessions: () => Promise<void>;
  feedback: Feedback;
}) {
  const { selected, setSelected, loadSessions, feedback } = deps;
  const [pins, setPins] = useState<Pin[]>([]);
  useEffect(() => {
    setPins([]);
    if (selected) api.pinsList({ session: selected }).then(setPins, () => {});
  }, [selected]);
  const pin = (seq: number) =>
    selected &&
    feedback.act(
      async () => {
        const added = await api.pinsAdd({ session: selected, seq, text: null });
        setPins(await api.pinsList({ session: selected }));
        return added;
      },
      { notice: (p) => `Pinned #${seq} (pin ${p.id}): every request after a checkpoint carries it verbatim` },
    );
  // Fork from here: a new session from what the model saw after message `seq`; it opens.
  const fork = (seq: number) =>
    selected &&
    feedback.act(() => api.forksFork({ session: selected, at: seq }), {
      notice: (f) => {
        loadSessions().then(() => setSelected(f.id));
        return `Forked at #${seq}: a new session of ${f.messages} messages (the source is unchanged)`;
      },
    });
  const removePin = (id: number) =>
    selected && feedback.act(async () => setPins(await api.pinsRemove({ session: selected, id })), { notice: () => `Pin ${id} removed` });
  return { pins, pin, fork, removePin };
}
