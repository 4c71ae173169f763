// The Settings dialog (its tabs and fields are the other files of this folder).
export { SettingsDialog } from "./SettingsDialog";
