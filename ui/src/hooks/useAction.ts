// The one pattern for a user action: show progress, run it, report a failure, refresh the views.
import { useCallback, useState } from "preact/hooks";
import { errorMessage } from "../events";

export type Feedback = {
  busy: string | null;
  error: string | null;
  notice: string | null;
  setBusy: (text: string | null) => void;
  setError: (text: string | null) => void;
  setNotice: (text: string | null) => void;
  fail: (e: unknown) => void;
  /** Runs `action`; its result (a notice, or nothing) is shown, an error is reported, then `refresh` runs. */
  act: <T>(action: () => Promise<T>, options?: { busy?: string; notice?: (result: T) => string | null }) => Promise<T | undefined>;
};

export function useFeedback(refresh: () => unknown): Feedback {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const fail = useCallback((e: unknown) => setError(errorMessage(e)), []);
  const act = async <T>(action: () => Promise<T>, options: { busy?: string; notice?: (result: T) => string | null } = {}) => {
    if (options.busy) setBusy(options.busy);
    try {
      const result = await action();
      const text = options.notice?.(result);
      if (text) setNotice(text);
      return result;
    } catch (e) {
      fail(e);
      return undefined;
    } finally {
      if (options.busy) setBusy(null);
      refresh();
    }
  };
  return { busy, error, notice, setBusy, setError, setNotice, fail, act };
}
