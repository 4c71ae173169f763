// The library's filter controls — agent, project, user, machine, last active, cost, compacted —
// shared by the sidebar's list and the Library view's table (both filter through logic/library.ts).
// User and machine show only where sessions carry them (served over a team's archive).
import { NO_LIBRARY_FILTERS, type LibraryFilters } from "../logic";

export function FilterSelects(props: {
  filters: LibraryFilters;
  onFilters: (filters: LibraryFilters) => void;
  agents: string[];
  /** The projects to pick from; none: no project filter (the sidebar groups by project instead). */
  projects?: string[];
  /** Who pushed the sessions, and from where (a team's archive); none: no such filter. */
  users?: string[];
  machines?: string[];
  /** Test ids are `<prefix>-agent`, `<prefix>-days`, …: the sidebar and the view apart. */
  testPrefix: string;
}) {
  const { filters, onFilters, agents, projects, users, machines, testPrefix } = props;
  const pick = (e: Event) => (e.target as HTMLSelectElement).value;
  return (
    <>
      <select value={filters.agent ?? ""} title="Agent" onChange={(e) => onFilters({ ...filters, agent: pick(e) || null })} data-testid={`${testPrefix}-agent`}>
        <option value="">every agent</option>
        {agents.map((a) => (
          <option value={a}>{a}</option>
        ))}
      </select>
      {projects && (
        <select value={filters.project ?? ""} title="Project" onChange={(e) => onFilters({ ...filters, project: pick(e) || null })} data-testid={`${testPrefix}-project`}>
          <option value="">every project</option>
          {projects.map((p) => (
            <option value={p}>{p}</option>
          ))}
        </select>
      )}
      <ChoiceSelect value={filters.user} values={users} title="User" every="every user" onPick={(user) => onFilters({ ...filters, user })} testId={`${testPrefix}-user`} />
      <ChoiceSelect value={filters.machine} values={machines} title="Machine" every="every machine" onPick={(machine) => onFilters({ ...filters, machine })} testId={`${testPrefix}-machine`} />
      <select
        value={filters.days ?? ""}
        title="Last active"
        onChange={(e) => {
          const v = pick(e);
          onFilters({ ...filters, days: v ? Number(v) : null });
        }}
        data-testid={`${testPrefix}-days`}
      >
        <option value="">any time</option>
        <option value="1">last day</option>
        <option value="7">last 7 days</option>
        <option value="30">last 30 days</option>
      </select>
      <select value={String(filters.minCostUsd)} title="Cost" onChange={(e) => onFilters({ ...filters, minCostUsd: Number(pick(e)) })} data-testid={`${testPrefix}-cost`}>
        <option value="0">any cost</option>
        <option value="0.01">≥ $0.01</option>
        <option value="1">≥ $1</option>
        <option value="10">≥ $10</option>
      </select>
      <label class="small" title="Only sessions with a compaction">
        <input type="checkbox" checked={filters.hasCompactions} onChange={(e) => onFilters({ ...filters, hasCompactions: (e.target as HTMLInputElement).checked })} data-testid={`${testPrefix}-compacted`} />{" "}
        compacted
      </label>
    </>
  );
}

/** A select of the values present, "every …" first (null); nothing when none is present. */
function ChoiceSelect(props: { value: string | null; values?: string[]; title: string; every: string; onPick: (value: string | null) => void; testId: string }) {
  if (!props.values?.length) return null;
  return (
    <select value={props.value ?? ""} title={props.title} onChange={(e) => props.onPick((e.target as HTMLSelectElement).value || null)} data-testid={props.testId}>
      <option value="">{props.every}</option>
      {props.values.map((v) => (
        <option value={v}>{v}</option>
      ))}
    </select>
  );
}

/** "12 sessions", "3 of 12 sessions", with a button clearing the filters when any is set. */
export function FilterCount(props: { shown: number; total: number; filtered: boolean; onClear: () => void }) {
  const { shown, total } = props;
  return (
    <>
      {shown === total ? `${shown} sessions` : `${shown} of ${total} sessions`}
      {props.filtered && (
        <>
          {" "}
          <button class="link small" onClick={props.onClear}>
            clear
          </button>
        </>
      )}
    </>
  );
}

/** Whether any filter is set. */
export function isFiltered(filters: LibraryFilters): boolean {
  return (Object.keys(NO_LIBRARY_FILTERS) as Array<keyof LibraryFilters>).some((key) => filters[key] !== NO_LIBRARY_FILTERS[key]);
}
