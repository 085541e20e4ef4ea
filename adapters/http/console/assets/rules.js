// @ts-check
// The API's own input rules, from the OpenAPI document the service serves (generated from the same zod schemas that
// parse requests), handed over in the page itself, so a form refuses in the browser exactly what the service would.

/**
 * @typedef {{ type?: string, minLength?: number, maxLength?: number, minimum?: number, maximum?: number,
 *   enum?: string[] }} FieldRule
 * @typedef {{ required: string[], properties: Record<string, FieldRule> }} BodyRule
 * @typedef {Record<string, BodyRule>} Rules
 */

/** @type {Rules | undefined} */
let rules;

/** The request bodies' schemas the page carries; undefined without them (the service still checks). */
export const useRules = () => {
  if (rules) return rules;
  try {
    rules = JSON.parse(document.getElementById("form-rules")?.textContent ?? "null") ?? undefined;
  } catch {
    rules = undefined;
  }
  return rules;
};

/**
 * Characters as the service counts them: code points, after trimming.
 * @param {string} text
 */
const length = (text) => [...text.trim()].length;

/**
 * What is wrong with one field's raw input, in words for the person typing, or "" when the service would take it.
 * @param {Rules | undefined} rules
 * @param {string} body the schema's name, e.g. "NewPet"
 * @param {string} field
 * @param {string} raw what the form holds
 * @param {string} label how the form names the field
 */
export const check = (rules, body, field, raw, label) => {
  const schema = rules?.[body];
  const rule = schema?.properties[field];
  if (!schema || !rule) return "";
  const required = schema.required.includes(field);
  if (rule.type === "integer") {
    if (raw.trim() === "") return required ? `${label}: required.` : "";
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) return `${label}: a whole number.`;
    if (rule.minimum !== undefined && value < rule.minimum) return `${label}: at least ${rule.minimum}.`;
    if (rule.maximum !== undefined && value > rule.maximum) return `${label}: at most ${rule.maximum}.`;
    return "";
  }
  if (rule.type === "string") {
    const n = length(raw);
    const min = rule.minLength ?? 0;
    const max = rule.maxLength ?? Infinity;
    if (n === 0 && min > 0) return `${label}: required.`;
    if (n === 0 && !required) return "";
    if (n < min || n > max) return `${label}: ${min} to ${max} characters (now ${n}).`;
    if (rule.enum && !rule.enum.includes(raw)) return `${label}: one of ${rule.enum.join(", ")}.`;
  }
  return "";
};
