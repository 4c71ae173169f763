// The engine's configuration schema read by the settings forms: defaults, ranges and options at a
// path, so the forms never keep a second copy of them.
import { CONFIG_SCHEMA } from "../configSchema";

/** A node of the configuration's JSON schema. */
type SchemaNode = {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  anyOf?: SchemaNode[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  description?: string;
};

const SCHEMA = CONFIG_SCHEMA as unknown as SchemaNode & { $defs: Record<string, SchemaNode> };

function resolveNode(node: SchemaNode | undefined): SchemaNode | undefined {
  if (!node) return undefined;
  const ref = node.$ref?.replace("#/$defs/", "");
  if (ref) return { ...SCHEMA.$defs[ref], ...node, $ref: undefined };
  const alternative = node.anyOf?.map(resolveNode).find((n) => n && (n.properties || n.enum));
  return alternative ? { ...alternative, ...node, anyOf: undefined } : node;
}

/**
 * The schema of the key at `path` (a name under a map such as `profiles` or `mcpServers` stands
 * for any entry): where the settings forms read the engine's defaults, ranges and options.
 */
export function schemaAt(path: string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = resolveNode(SCHEMA);
  for (const key of path) {
    const properties: Record<string, SchemaNode> = node?.properties ?? {};
    const extra: SchemaNode | boolean | undefined = node?.additionalProperties;
    node = resolveNode(properties[key] ?? (typeof extra === "object" ? extra : undefined));
  }
  return node;
}

/** The engine's default for the key at `path`, as a form shows it ("none" for null). */
export function defaultHint(path: string[]): string {
  const value = schemaAt(path)?.default;
  return value === undefined || value === null ? "none" : String(value);
}

/** The allowed range of a number at `path` ("0.1–0.99"), or "" when it has none. */
export function rangeHint(path: string[]): string {
  const node = schemaAt(path);
  if (node?.minimum === undefined || node.maximum === undefined) return "";
  return `${node.minimum}–${node.maximum}`;
}

/** The values a key at `path` may take (an enum of the schema). */
export function optionsAt(path: string[]): string[] {
  return (schemaAt(path)?.enum ?? []).filter((v): v is string => typeof v === "string");
}
