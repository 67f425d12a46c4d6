/** A camelCase name as the wire spells it: `taskId` → `task_id`. */
export const snakeCase = (name: string): string =>
  name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** A record's own keys in snake_case (one level: values are left as they are). */
export const snakeKeys = (record: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [snakeCase(key), value]));
