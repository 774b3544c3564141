// The mocha globals the browser tests use (web-test-runner runs them with mocha).
declare function describe(name: string, fn: () => void): void
declare function it(name: string, fn: () => void | Promise<void>): void
/** A hook run once before a file's tests; `this.timeout` gives it its own time. */
declare function before(fn: (this: { timeout(ms: number): void }) => void | Promise<void>): void
/** A hook run after each test of the suite it is in. */
declare function afterEach(fn: () => void | Promise<void>): void
