// What to quote in a bug report, at the foot of Settings: the release, the commit it was built
// from, the database schema it reads and the home in use, copied with one click.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { About } from "../bindings";

/** "Alisio 0.1.0 (abc123def456) · schema 24 · home /home/me/.alisio". */
export function aboutText(a: About): string {
  return `Alisio ${a.version} (${a.commit}) · schema ${a.schema} · home ${a.home}`;
}

export function AboutLine() {
  const [about, setAbout] = useState<About | null>(null);
  useEffect(() => {
    api.appAbout({}).then(setAbout, () => {});
  }, []);
  if (!about) return null;
  const text = aboutText(about);
  return (
    <p class="muted small about" data-testid="about">
      {text}{" "}
      <button class="link" onClick={() => navigator.clipboard?.writeText(text)} title="Copy for a bug report">
        Copy
      </button>
    </p>
  );
}
