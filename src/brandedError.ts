/** The brand of an error class: one symbol per class name, the same in every copy of its module. */
const brandOf = (type: { name: string }): symbol => Symbol.for(`archivist.error.${type.name}`);

/**
 * An error class whose `instanceof` holds across copies of its module. A loader can evaluate one
 * module twice — statically under one URL, through `import()` under another, as the test runner's
 * does for the adapters `src/adapters.ts` imports lazily — and an error made by one copy then fails
 * `instanceof` against the other: a write conflict the projection runner settles, a version
 * conflict a command retries, or an outage the API answers with 503, escaped as a failure. Each
 * class is known by a brand named after it (error class names are unique in this project), and an
 * error carries the brands of its class and of every class above it.
 */
export class BrandedError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    for (let type: unknown = new.target; type !== Error && typeof type === 'function';) {
      Object.defineProperty(this, brandOf(type), { value: true });
      type = Object.getPrototypeOf(type);
    }
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && brandOf(this) in value;
  }
}
