// Served mode (`alisio serve`: a team's archive in a browser, read-only): why controls that write
// are off, and the badge that says whose archive this is.

/** The title of every control that writes, served. */
export const READ_ONLY = "Read-only: a team's archive";

/** Why a control that writes is off: served, always (the server refuses every write); else null. */
export function writeBlocked(served: boolean): string | null {
  return served ? READ_ONLY : null;
}

/** The badge above the served page: the archive named once the server has said which. */
export function archiveBadge(info: { archive: string } | null): string {
  return info?.archive ? `Read-only · team archive ${info.archive}` : "Read-only · team archive";
}
