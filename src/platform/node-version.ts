/** The oldest Node.js Prep runs on, as package.json's `engines` says (>=22.13). */
export const MIN_NODE = { major: 22, minor: 13 } as const;

/** Whether a Node.js version (`process.versions.node`, e.g. "24.21.0") is new enough. */
export function supportsNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor);
}
