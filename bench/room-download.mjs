// What a candidate's browser downloads for each kind of room: the entry module, every chunk it imports statically,
// the room's own chunk and (for the editor rooms) the one grammar shown, raw, gzip and brotli, from dist/room.
// The ratio is against everything built (what every candidate downloaded while the room was one script).
// Usage: npm run bench:room
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/room');
const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
const staticImports = (file) => [...readFileSync(path.join(dir, file), 'utf8').matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)].map((m) => m[1]);
const chunk = (prefix) => files.find((f) => f.startsWith(`${prefix}-`)) ?? (() => { throw new Error(`no ${prefix} chunk in ${dir}`); })();

function closure(roots) {
  const seen = new Set();
  const todo = [...roots];
  while (todo.length) {
    const file = todo.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...staticImports(file));
  }
  return [...seen];
}
const bytes = (set, ext = '') => set.reduce((sum, f) => sum + statSync(path.join(dir, f + ext)).size, 0);

const everything = bytes(files, '.br');
const rows = [
  ['hosted page before Start', ['launch.js']],
  ['embed before a room', ['embed.js', 'embed-room.js']],
  ['questionnaire', ['launch.js', chunk('questionnaire-room')]],
  ['prompt engineering', ['launch.js', chunk('prompt-room')]],
  ['coding (Python)', ['launch.js', chunk('coding-room'), chunk('codemirror-lang-python')]],
  ['interview (Python)', ['launch.js', chunk('interview-room'), chunk('codemirror-lang-python')]],
  ['everything built', files],
];
console.log('room'.padEnd(28), 'raw'.padStart(10), 'gzip'.padStart(9), 'brotli'.padStart(9), '  of all (br)');
for (const [name, roots] of rows) {
  const set = closure(roots);
  const br = bytes(set, '.br');
  console.log(name.padEnd(28), String(bytes(set)).padStart(10), String(bytes(set, '.gz')).padStart(9), String(br).padStart(9), `  ${((100 * br) / everything).toFixed(0)}%`);
}
