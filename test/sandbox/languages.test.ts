import { beforeAll, describe, expect, it } from 'vitest';
import { STARTER_TEMPLATES } from '../../src/sandbox/starters.js';
import { runOnce, testSandbox, type TestSandbox } from './helpers.js';

/** Reads two integers and prints their sum: the same program in every language. */
const SUM: Record<string, string> = {
  python: 'a, b = map(int, input().split())\nprint(a + b)\n',
  javascript: "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n",
  typescript: "import * as fs from 'fs';\nconst [a, b]: number[] = fs.readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n",
  c: '#include <stdio.h>\nint main(void) { long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b); return 0; }\n',
  cpp: '#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; std::cout << a + b << "\\n"; }\n',
  java: 'import java.util.*;\npublic class Main { public static void main(String[] x) { Scanner s = new Scanner(System.in); System.out.println(s.nextLong() + s.nextLong()); } }\n',
  rust: 'use std::io::*;\nfn main() { let mut s = String::new(); stdin().read_to_string(&mut s).unwrap(); let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect(); println!("{}", v[0] + v[1]); }\n',
  go: 'package main\nimport "fmt"\nfunc main() { var a, b int64; fmt.Scan(&a, &b); fmt.Println(a + b) }\n',
  perl: 'my ($a, $b) = split " ", <STDIN>; print $a + $b, "\\n";\n',
  bash: 'read a b\necho $((a + b))\n',
};

const REQUIRED = ['python', 'javascript', 'typescript', 'c', 'cpp', 'java'];

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = testSandbox();
});

describe('languages', () => {
  it('detects at least the required languages, each with a version and a file name', async () => {
    const status = await sandbox.status();
    expect(status.reason).toBeNull();
    const ids = status.languages.map((l) => l.id);
    for (const id of REQUIRED) expect(ids).toContain(id);
    for (const l of status.languages) {
      expect(l.version, l.id).toMatch(/\d/);
      expect(l.fileName).toMatch(/^\w+\.\w+$/);
    }
  });

  it('runs the same program in every detected language', async () => {
    const languages = await sandbox.languages();
    for (const language of languages) {
      const source = SUM[language.id];
      expect(source, `a sample program for ${language.id}`).toBeDefined();
      const r = await runOnce(sandbox, language.id, source!, { stdin: '40 2\n' });
      expect(r.compile?.ok ?? true, `${language.id}: ${r.compile?.output}`).toBe(true);
      expect(r.stdout, `${language.id}: ${r.stderr}`).toBe('42\n');
      expect(r.case!.verdict).toBe('COMPLETED');
      expect(r.case!.timeMs).toBeGreaterThanOrEqual(0);
      expect(r.case!.memoryKb, language.id).toBeGreaterThan(100);
    }
  }, 120_000);

  it("every detected language has a starter template that compiles and runs on a problem's input", async () => {
    for (const language of await sandbox.languages()) {
      const source = STARTER_TEMPLATES[language.id];
      expect(source, `a starter template for ${language.id}`).toBeDefined();
      const r = await runOnce(sandbox, language.id, source!, { stdin: '3\n1 2 3\n' });
      expect(r.compile?.ok ?? true, `${language.id}: ${r.compile?.output}`).toBe(true);
      expect(r.case!.verdict, `${language.id}: ${r.stderr}`).toBe('COMPLETED');
    }
  }, 120_000);

  it('reports a compile error with the compiler\'s message, and runs nothing', async () => {
    for (const [language, source, needle] of [
      ['c', 'int main(void) { return nope; }\n', 'nope'],
      ['cpp', 'int main() { undeclared(); }\n', 'undeclared'],
      ['java', 'public class Main { public static void main(String[] a) { int x = "s"; } }\n', 'incompatible types'],
      ['typescript', 'const x = ;\n', 'TS1109'],
    ] as const) {
      const r = await runOnce(sandbox, language, source);
      expect(r.compile?.ok, language).toBe(false);
      expect(r.compile?.output, language).toContain(needle);
      expect(r.execution.cases).toHaveLength(0);
    }
  }, 60_000);

  it('compares outputs with the comparator and gives per-case verdicts', async () => {
    const execution = await sandbox.execute({
      language: 'python', source: 'print(input().strip()[::-1])\n', comparator: 'exact', priority: 'batch',
      limits: { timeLimitMs: 2000, memoryLimitMb: 128 },
      cases: [{ name: 'a', input: 'abc\n', expected: 'cba\n' }, { name: 'b', input: 'xy\n', expected: 'xy\n' }],
    });
    expect(execution.cases.map((c) => c.verdict)).toEqual(['ACCEPTED', 'WRONG_ANSWER']);
  });

  // Was a bug: the 16 KiB cut of the compiler's output could fall inside an emoji, sending half of it (an unpaired
  // surrogate) in the JSON of a run or a submission.
  it('cuts long compiler output between characters', { timeout: 60_000 }, async () => {
    for (const pad of ['', 'a']) {
      const source = `public class Main { public static void main(String[] a) { int x = "${pad}${'\u{1F600}'.repeat(9000)}"; } }\n`;
      const { compile } = await runOnce(sandbox, 'java', source);
      expect(compile?.ok).toBe(false);
      expect(compile!.output).toContain('truncated');
      expect(compile!.output.isWellFormed(), `pad ${JSON.stringify(pad)}`).toBe(true);
    }
  });
});
