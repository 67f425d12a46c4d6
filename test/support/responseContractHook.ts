import { takeViolations, type ContractViolation } from './responseContract.js';

/** Violations found during the run, with the test that caused them. */
const found: Array<ContractViolation & { test: string }> = [];

/**
 * A mocha root hook: any response of a test app that broke the OpenAPI contract (an undeclared
 * status, a body not matching its schema) is recorded with its test, and the run fails at its end
 * listing them all. Failing in `afterEach` instead would make mocha skip every test after it.
 */
export const mochaHooks = {
  afterEach(this: Mocha.Context): void {
    const title = this.currentTest?.fullTitle() ?? '(unknown test)';
    for (const violation of takeViolations()) found.push({ ...violation, test: title });
  },
  afterAll(): void {
    if (found.length === 0) return;
    const lines = found.map((v) => `  ${v.test}\n    ${v.request} → ${v.status}: ${v.problem}`);
    throw new Error(`responses that break the published OpenAPI contract:\n${lines.join('\n')}`);
  },
};
