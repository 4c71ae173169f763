// The settings forms' fields, each bound to a path in the settings document: text, number and
// choice, and their schema-driven forms (the engine's default as placeholder, its range and options).
import { useState } from "preact/hooks";
import { defaultHint, getIn, numberValue, optionsAt, rangeHint, type SettingsDoc } from "../logic";

/** Sets the value at a path of the document being edited (`undefined` removes the key). */
export type Edit = (path: string[], value: unknown) => void;

/** A text field bound to `path`; blank removes the key. */
export function Text(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; placeholder?: string; list?: string; testId?: string }) {
  const value = getIn(props.doc, props.path);
  return (
    <label>
      {props.label}
      <input
        value={typeof value === "string" ? value : ""}
        placeholder={props.placeholder}
        list={props.list}
        onInput={(e) => {
          const text = (e.target as HTMLInputElement).value;
          props.edit(props.path, text === "" ? undefined : text);
        }}
        data-testid={props.testId}
      />
    </label>
  );
}

/** A number field bound to `path`; blank means the default (shown as the placeholder). */
export function NumberField(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; placeholder?: string; step?: string; testId?: string }) {
  const value = getIn(props.doc, props.path);
  const [text, setText] = useState(typeof value === "number" ? String(value) : "");
  const [bad, setBad] = useState(false);
  return (
    <label>
      {props.label}
      <input
        inputMode="decimal"
        step={props.step}
        value={text}
        placeholder={props.placeholder}
        aria-invalid={bad}
        onInput={(e) => {
          const typed = (e.target as HTMLInputElement).value;
          setText(typed);
          const n = numberValue(typed);
          setBad(n === null);
          if (n !== null) props.edit(props.path, n);
        }}
        data-testid={props.testId}
      />
      {bad && <span class="small warn">not a number</span>}
    </label>
  );
}

function Choice(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; options: string[]; fallback: string; testId?: string }) {
  const value = getIn(props.doc, props.path);
  return (
    <label>
      {props.label}
      <select value={typeof value === "string" ? value : props.fallback} onChange={(e) => props.edit(props.path, (e.target as HTMLSelectElement).value)} data-testid={props.testId}>
        {props.options.map((o) => (
          <option value={o}>{o}</option>
        ))}
      </select>
    </label>
  );
}

/** A number field whose placeholder is the engine's default and whose label shows the allowed range. */
export function SchemaNumber(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; step?: string; schemaPath?: string[]; testId?: string }) {
  const at = props.schemaPath ?? props.path;
  const range = rangeHint(at);
  return (
    <NumberField
      doc={props.doc}
      edit={props.edit}
      path={props.path}
      label={range ? `${props.label} (${range})` : props.label}
      placeholder={defaultHint(at)}
      step={props.step}
      testId={props.testId ?? `field-${props.path.join(".")}`}
    />
  );
}

/** A choice among the values the schema allows, the engine's default preselected. */
export function SchemaChoice(props: { doc: SettingsDoc; edit: Edit; path: string[]; label: string; schemaPath?: string[]; testId?: string }) {
  const at = props.schemaPath ?? props.path;
  return <Choice doc={props.doc} edit={props.edit} path={props.path} label={props.label} options={optionsAt(at)} fallback={defaultHint(at)} testId={props.testId} />;
}
