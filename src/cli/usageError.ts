/** A command line the CLI cannot run: it answers with the message and its usage, and exits 2. */
export class UsageError extends Error {}
