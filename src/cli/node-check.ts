/**
 * Imported first by the CLI: on a Node.js older than package.json's `engines` the service would fail later and
 * obscurely (its native SQLite module, built for a newer Node, can crash the process outright), so it stops here
 * with a sentence instead.
 */
import { MIN_NODE, supportsNode } from '../platform/node-version.js';

if (!supportsNode(process.versions.node)) {
  console.error(`prep: Node.js ${process.versions.node} is too old; Prep needs Node.js ${MIN_NODE.major}.${MIN_NODE.minor} or later (24 LTS recommended). `
    + 'Install it and run `npm install` again, so that native modules are built for it.');
  process.exit(1);
}
