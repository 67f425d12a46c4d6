import { takeViolations } from './responseContract.js';

/**
 * A mocha root hook: after each test, any response of a test app that broke the OpenAPI contract
 * (an undeclared status, a body not matching its schema) fails that test.
 */
export const mochaHooks = {
  afterEach(): void {
    const found = takeViolations();
    if (found.length > 0) {
      const lines = found.map((v) => `  ${v.request} → ${v.status}: ${v.problem}`);
      throw new Error(`responses that break the published OpenAPI contract:\n${lines.join('\n')}`);
    }
  },
};
