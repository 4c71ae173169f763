// Events from the application (UiEvent on "alisio://event") and the messages of its errors.
// Served (a browser, `alisio serve`) nothing is pushed to the page: no events arrive.
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { UiEvent } from "./bindings";
import { served } from "./transport";

export function onUiEvent(handler: (event: UiEvent) => void): Promise<UnlistenFn> {
  if (served) return Promise.resolve(() => {});
  return listen<UiEvent>("alisio://event", (e) => handler(e.payload));
}

/** The human message of an API error (or anything thrown). */
export function errorMessage(error: unknown): string {
  if (error && typeof error === "object" && "message" in error) return String((error as { message: unknown }).message);
  return String(error);
}
