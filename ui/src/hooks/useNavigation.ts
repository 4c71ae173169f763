// Where the window looks: the tab shown, the trimmed output or past request opened, and a jump to a
// message (in the session shown, or in another once it has loaded). Opening a session loads it, at
// its end unless a jump waits for it.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { TrimmedDiff } from "../bindings";
import type { Tab } from "../tabs";
import type { Feedback } from "./useAction";
import type { useSessionView } from "./useSessionView";
import type { useStoredRows } from "./useStoredRows";

export function useNavigation(deps: {
  selected: string | null;
  setSelected: (id: string) => void;
  view: ReturnType<typeof useSessionView>;
  storedRows: ReturnType<typeof useStoredRows>;
  feedback: Feedback;
}) {
  const { selected, setSelected, view, storedRows, feedback } = deps;
  const [tab, setTab] = useState<Tab>("stored");
  const [diff, setDiff] = useState<TrimmedDiff | null>(null);
  /** Two sessions picked to compare (the Library view): `b` beside `a` while `a` is shown. */
  const [comparePair, setComparePair] = useState<{ a: string; b: string } | null>(null);
  const pendingJump = useRef<number | null>(null);

  useEffect(() => {
    view.clear();
    setDiff(null);
    storedRows.reset();
    if (selected)
      view.load(selected).then(() => {
        // Opened from a search hit: at its message; otherwise at the end.
        const seq = pendingJump.current;
        pendingJump.current = null;
        if (seq !== null) jumpTo(seq);
        else storedRows.scrollToEnd();
      });
  }, [selected]);

  const openDiff = async (seq: number) => {
    if (!selected) return;
    setTab("diffs");
    setDiff(null);
    await feedback.act(async () => setDiff(await api.viewsTrimmedDiff({ session: selected, seq })));
  };

  const jumpTo = async (seq: number) => {
    setTab("stored");
    if (!selected) return;
    // A message outside the loaded window: load the window around it first.
    const around = await view.showAround(selected, seq);
    if (around) storedRows.jumpTo(seq, around);
  };

  /** A search hit picked: its session opened at the message. */
  const openMessage = (id: string, seq: number) => {
    setTab("stored");
    if (id === selected) return jumpTo(seq);
    pendingJump.current = seq;
    setSelected(id);
  };

  /** A message picked in Compare: its session opened at the message. */
  const openCompared = (id: string, seq: number) => {
    pendingJump.current = seq;
    setTab("stored");
    if (id !== selected) setSelected(id);
    else jumpTo(seq);
  };

  /** Two sessions compared: the first shown, the Compare tab with the second beside it. */
  const openCompare = (a: string, b: string) => {
    setComparePair({ a, b });
    if (a !== selected) setSelected(a);
    setTab("compare");
  };
  /** The session to compare the shown one with, when picked (else Compare's own default). */
  const compareWith = comparePair && comparePair.a === selected ? comparePair.b : null;

  /** A call picked in the inspector: the model view of its request. */
  const openCall = (id: number) => {
    if (!selected) return;
    setTab("model");
    view.chooseCall(selected, String(id));
  };

  return { tab, setTab, diff, openDiff, jumpTo, openMessage, openCompared, openCompare, compareWith, openCall };
}
