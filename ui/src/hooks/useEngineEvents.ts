// Subscribes to engine events for the window's lifetime and folds them with `reduceUiEvent`.
import { useEffect, useRef, useState } from "preact/hooks";
import type { MutableRef } from "preact/hooks";
import { onUiEvent } from "../events";
import { IDLE, reduceUiEvent, type Effect, type LiveState } from "./engineEvents";

export function useEngineEvents(selectedRef: MutableRef<string | null>, onEffect: (effect: Effect) => void) {
  const [live, setLive] = useState<LiveState>(IDLE);
  const state = useRef(live);
  const effect = useRef(onEffect);
  effect.current = onEffect;

  const update = (next: LiveState) => {
    state.current = next;
    setLive(next);
  };

  useEffect(() => {
    const unlisten = onUiEvent((event) => {
      const [next, todo] = reduceUiEvent(state.current, event, selectedRef.current);
      if (next !== state.current) update(next);
      effect.current(todo);
    });
    return () => {
      unlisten.then((f) => f());
    };
  }, []);

  /** Merges `patch` into the live state; a function patch sees the latest state (not a render's). */
  const patch = (change: Partial<LiveState> | ((current: LiveState) => Partial<LiveState>)) =>
    update({ ...state.current, ...(typeof change === "function" ? change(state.current) : change) });
  return { live, update: patch };
}
