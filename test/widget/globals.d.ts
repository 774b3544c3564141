// The two mocha globals the browser tests use (web-test-runner runs them with mocha).
declare function describe(name: string, fn: () => void): void
declare function it(name: string, fn: () => void | Promise<void>): void
