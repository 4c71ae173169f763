// The Library view's columns shown and its sort, remembered across starts (localStorage); a value
// that cannot be read (edited by hand, from an older version) gives the defaults. Only the columns
// offered are shown and sorted by (User and Machine over a team's archive); the choice stays whole.
import { useEffect, useMemo, useState } from "preact/hooks";
import { nextSort, offeredSort, parseColumns, parseSort, shownColumns, toggleColumn, type ColumnId } from "../logic";

const COLUMNS_KEY = "alisio.libraryColumns";
const SORT_KEY = "alisio.librarySort";

function read(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(key: string, value: string) {
  try {
    globalThis.localStorage?.setItem(key, value);
  } catch {
    // Storage full or refused: the choice holds until the window closes.
  }
}

export function useLibraryPrefs(offered: readonly ColumnId[]) {
  const [columns, setColumns] = useState(() => parseColumns(read(COLUMNS_KEY)));
  const [sort, setSort] = useState(() => parseSort(read(SORT_KEY)));
  useEffect(() => write(COLUMNS_KEY, JSON.stringify(columns)), [columns]);
  useEffect(() => write(SORT_KEY, JSON.stringify(sort)), [sort]);
  return {
    columns: useMemo(() => shownColumns(columns, offered), [columns, offered]),
    toggleColumn: (column: ColumnId) => setColumns((current) => toggleColumn(current, column)),
    sort: offeredSort(sort, offered),
    // From the sort applied: a click on the default's column flips it even while the one chosen is away.
    sortBy: (column: ColumnId) => setSort((current) => nextSort(offeredSort(current, offered), column)),
  };
}
