/**
 * Whether the user trusts the workspace with the files a cloned repository
 * brings that make kosong act (`.mcp.json` servers, project permission
 * rules). Until the interactive trust question (remembered per workspace)
 * lands, the user says so with `KOSONG_TRUST_WORKSPACE=1`; nothing else
 * trusts a workspace.
 */

/** True when the user trusts the workspace (`KOSONG_TRUST_WORKSPACE` set and not `0`/`false`/`no`/`off`). */
export function isWorkspaceTrusted(env: NodeJS.ProcessEnv): boolean {
  const value = env.KOSONG_TRUST_WORKSPACE;
  return !!value && !["0", "false", "no", "off"].includes(value.toLowerCase());
}
