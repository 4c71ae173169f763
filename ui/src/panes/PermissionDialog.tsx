// Allow / Deny for a tool call whose permission is "ask".
import { Dialog } from "../components";
import type { Permission } from "../hooks/engineEvents";

export function PermissionDialog(props: { permission: Permission; onAnswer: (approve: boolean) => void }) {
  const { permission } = props;
  return (
    <Dialog title="Allow this tool call?" onClose={() => props.onAnswer(false)} testId="permission-dialog">
      <p>
        <strong>{permission.call.name}</strong> needs approval ({permission.permission} is "ask").
      </p>
      <pre class="content">{permission.call.arguments}</pre>
      <div class="row">
        <button onClick={() => props.onAnswer(true)} data-testid="allow">Allow</button>
        <button class="secondary" onClick={() => props.onAnswer(false)} data-testid="deny">Deny</button>
      </div>
    </Dialog>
  );
}
