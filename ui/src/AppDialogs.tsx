// The window's open dialog (at most one: compact, a proposal, export, import, proxy, settings) and
// the permission question of a running turn. Served (read-only) none opens: each writes, or sets up
// this machine (and no turn runs to ask a permission).
import { api } from "./api";
import type { ProxyStatus, SessionSummary, Strategy } from "./bindings";
import { CompactDialog, ExportDialog, ImportDialog, ProposalDialog, ProxyDialog } from "./dialogs";
import type { LiveState } from "./hooks/engineEvents";
import type { Feedback } from "./hooks/useAction";
import type { DialogState } from "./hooks/useActions";
import { PermissionDialog } from "./panes/PermissionDialog";
import { SettingsDialog } from "./settings";
import { servedReadOnly } from "./transport";

export function AppDialogs(props: {
  dialog: DialogState;
  setDialog: (dialog: DialogState) => void;
  selected: string | null;
  setSelected: (id: string) => void;
  sessions: SessionSummary[];
  loadSessions: () => Promise<void>;
  feedback: Feedback;
  compact: (focus: string | null, preview: boolean, strategy?: Strategy) => void;
  onProxyStatus: (status: ProxyStatus) => void;
  live: LiveState;
  updateLive: (patch: Partial<LiveState>) => void;
}) {
  const { dialog, setDialog, selected, setSelected, sessions, loadSessions, feedback, compact, live, updateLive } = props;
  if (servedReadOnly) return null;
  return (
    <>
      {dialog?.kind === "compact" && selected && <CompactDialog session={selected} onClose={() => setDialog(null)} onCompact={compact} />}
      {dialog?.kind === "proposal" && selected && (
        <ProposalDialog
          proposal={dialog.proposal}
          initial={dialog.text}
          partial={dialog.partial}
          fidelity={dialog.fidelity}
          onClose={() => setDialog(null)}
          onApply={(text) =>
            feedback.act(() => api.compactionApply({ session: selected, proposal: dialog.proposal, edited: text }), {
              notice: () => {
                setDialog(null);
                return `Proposal #${dialog.proposal} applied`;
              },
            })
          }
          onDiscard={() => feedback.act(() => api.compactionDiscard({ session: selected, proposal: dialog.proposal })).then(() => setDialog(null))}
        />
      )}
      {dialog?.kind === "export" && selected && (
        <ExportDialog session={selected} title={sessions.find((s) => s.id === selected)?.title ?? selected} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "import" && (
        <ImportDialog
          initial={dialog.path}
          onClose={() => setDialog(null)}
          onImported={(first) => {
            loadSessions();
            if (first && !selected) setSelected(first);
          }}
        />
      )}
      {dialog?.kind === "proxy" && (
        <ProxyDialog
          onClose={() => setDialog(null)}
          onStatus={props.onProxyStatus}
          onOpen={(id) => {
            setDialog(null);
            loadSessions();
            setSelected(id);
          }}
        />
      )}
      {dialog?.kind === "settings" && <SettingsDialog onClose={() => setDialog(null)} onSaved={() => feedback.act(async () => "Settings saved", { notice: (text) => text })} />}
      {live.permission && (
        <PermissionDialog
          permission={live.permission}
          onAnswer={(approve) => {
            if (live.permission) api.turnsAnswerPermission({ id: live.permission.id, approve });
            updateLive({ permission: null });
          }}
        />
      )}
    </>
  );
}
