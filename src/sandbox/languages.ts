import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** A language the sandbox can run: how to find its toolchain, compile a source file and run the result. */
export interface Language {
  id: string;
  name: string;
  version: string;
  /** The file the candidate's source is saved as. */
  fileName: string;
  compile: CompilePlan | null;
  /** argv of one run; `memoryMb` is the problem's memory limit. */
  run(memoryMb: number): string[];
  /** Address space for a run: runtimes that reserve virtual memory up front (JVM, V8) get more, and cap their heap instead. */
  addressSpaceMb(memoryMb: number): number;
  processes: number;
}

export interface CompilePlan {
  /** Shell command run in the workdir; it writes the artifact to fd 4. */
  script: string;
  /** The artifact's name in the run's workdir. */
  artifact: string;
  executable: boolean;
  /** Extra files the compile step needs (a transpiler shim). */
  files: Array<{ name: string; content: string | Buffer }>;
  addressSpaceMb: number;
  processes: number;
}

/** The TypeScript compile step: transpile with the typescript package, report syntax errors as a compiler would. */
const TS_COMPILE = `
const ts = require('./typescript.js');
const fs = require('fs');
const out = ts.transpileModule(fs.readFileSync('main.ts', 'utf8'), {
  fileName: 'main.ts', reportDiagnostics: true,
  compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, strict: false },
});
const diagnostics = out.diagnostics || [];
for (const d of diagnostics) {
  const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
  process.stderr.write('main.ts(' + (at.line + 1) + ',' + (at.character + 1) + '): error TS' + d.code + ': ' + ts.flattenDiagnosticMessageText(d.messageText, '\\n') + '\\n');
}
if (diagnostics.length > 0) process.exit(1);
fs.writeSync(4, out.outputText);
`;

const JVM_FLAGS = ['-XX:+UseSerialGC', '-XX:ReservedCodeCacheSize=64m', '-XX:CompressedClassSpaceSize=64m', '-Xss64m'];

interface Candidate {
  id: string;
  name: string;
  /** Binaries that must all exist (absolute paths; the first found of each alternative). */
  tools: string[][];
  version(tools: string[]): Promise<string>;
  build(tools: string[]): Omit<Language, 'id' | 'name' | 'version'> | null;
}

const native = (memoryMb: number) => memoryMb + 64;

const CANDIDATES: Candidate[] = [
  {
    id: 'python', name: 'Python 3', tools: [['/usr/bin/python3', '/usr/local/bin/python3']],
    version: async ([py]) => (await output(py, ['--version'])).replace(/^Python\s+/, ''),
    build: ([py]) => ({
      fileName: 'main.py', compile: null, run: () => [py, 'main.py'], addressSpaceMb: native, processes: 64,
    }),
  },
  {
    id: 'javascript', name: 'JavaScript (Node.js)', tools: [['/usr/bin/node', '/usr/local/bin/node']],
    version: async ([node]) => (await output(node, ['--version'])).replace(/^v/, ''),
    build: ([node]) => ({
      fileName: 'main.js', compile: null, run: (mb) => [node, `--max-old-space-size=${mb}`, 'main.js'],
      addressSpaceMb: (mb) => mb + 1024, processes: 64,
    }),
  },
  {
    id: 'typescript', name: 'TypeScript', tools: [['/usr/bin/node', '/usr/local/bin/node']],
    version: async () => typescriptVersion() ?? '',
    build: ([node]) => {
      const dir = typescriptDir();
      if (!dir) return null;
      // The compiler goes in as a file of the step (not a bind mount): the service's install directory may
      // be unreadable to the sandbox's uid, and nothing of it is shown inside.
      const compiler = readFileSync(path.join(dir, 'lib', 'typescript.js'));
      return {
        fileName: 'main.ts',
        compile: {
          script: `${node} --max-old-space-size=512 compile.cjs`, artifact: 'main.js', executable: false,
          files: [{ name: 'compile.cjs', content: TS_COMPILE }, { name: 'typescript.js', content: compiler }], addressSpaceMb: 2048, processes: 64,
        },
        run: (mb) => [node, `--max-old-space-size=${mb}`, 'main.js'], addressSpaceMb: (mb) => mb + 1024, processes: 64,
      };
    },
  },
  {
    id: 'c', name: 'C (GCC)', tools: [['/usr/bin/gcc']],
    version: async ([gcc]) => output(gcc, ['-dumpfullversion']),
    build: ([gcc]) => ({
      fileName: 'main.c',
      compile: { script: `${gcc} -O2 -std=gnu17 -pipe -o main main.c -lm && cat main >&4`, artifact: 'main', executable: true, files: [], addressSpaceMb: 2048, processes: 32 },
      run: () => ['./main'], addressSpaceMb: native, processes: 64,
    }),
  },
  {
    id: 'cpp', name: 'C++ (GCC)', tools: [['/usr/bin/g++']],
    version: async ([gxx]) => output(gxx, ['-dumpfullversion']),
    build: ([gxx]) => ({
      fileName: 'main.cpp',
      compile: { script: `${gxx} -O2 -std=gnu++17 -pipe -o main main.cpp && cat main >&4`, artifact: 'main', executable: true, files: [], addressSpaceMb: 2048, processes: 32 },
      run: () => ['./main'], addressSpaceMb: native, processes: 64,
    }),
  },
  {
    id: 'java', name: 'Java', tools: [['/usr/bin/javac'], ['/usr/bin/java']],
    version: async ([, java]) => ((await output(java, ['-version'])).match(/version "([^"]+)"/)?.[1] ?? ''),
    build: ([javac, java]) => {
      const jar = path.join(path.dirname(javac), 'jar');
      if (!isRunnable(jar)) return null;
      const j = JVM_FLAGS.map((f) => `-J${f}`).join(' ');
      return {
        fileName: 'Main.java',
        compile: {
          script: `${javac} ${j} -J-Xmx512m -encoding UTF-8 -d classes Main.java && ${jar} ${j} cf main.jar -C classes . && cat main.jar >&4`,
          artifact: 'main.jar', executable: false, files: [], addressSpaceMb: 4096, processes: 256,
        },
        run: (mb) => [java, `-Xmx${mb}m`, ...JVM_FLAGS, '-cp', 'main.jar', 'Main'],
        addressSpaceMb: (mb) => mb + 2048, processes: 256,
      };
    },
  },
  {
    id: 'rust', name: 'Rust', tools: [['/usr/bin/rustc', '/usr/local/bin/rustc'], ['/usr/bin/cc']],
    version: async ([rustc]) => (await output(rustc, ['--version'])).split(/\s+/)[1] ?? '',
    build: ([rustc]) => ({
      fileName: 'main.rs',
      compile: { script: `${rustc} -O --edition 2021 -o main main.rs && cat main >&4`, artifact: 'main', executable: true, files: [], addressSpaceMb: 4096, processes: 64 },
      run: () => ['./main'], addressSpaceMb: native, processes: 64,
    }),
  },
  {
    id: 'go', name: 'Go', tools: [['/usr/bin/go', '/usr/local/go/bin/go']],
    version: async ([go]) => ((await output(go, ['version'])).match(/go(\d[\w.]*)/)?.[1] ?? ''),
    build: ([go]) => ({
      fileName: 'main.go',
      compile: {
        script: `GOCACHE=/tmp/go-cache GOPATH=/tmp/go GOFLAGS=-mod=mod ${go} build -o main main.go && cat main >&4`,
        artifact: 'main', executable: true, files: [], addressSpaceMb: 4096, processes: 128,
      },
      run: () => ['./main'], addressSpaceMb: (mb) => mb + 512, processes: 64,
    }),
  },
  {
    id: 'perl', name: 'Perl 5', tools: [['/usr/bin/perl']],
    version: async ([perl]) => (await output(perl, ['-e', 'print $^V'])).replace(/^v/, ''),
    build: ([perl]) => ({ fileName: 'main.pl', compile: null, run: () => [perl, 'main.pl'], addressSpaceMb: native, processes: 64 }),
  },
  {
    id: 'bash', name: 'Bash', tools: [['/usr/bin/bash', '/bin/bash']],
    version: async ([bash]) => ((await output(bash, ['--version'])).match(/version (\S+)/)?.[1] ?? ''),
    build: ([bash]) => ({ fileName: 'main.sh', compile: null, run: () => [bash, 'main.sh'], addressSpaceMb: native, processes: 64 }),
  },
];

/**
 * The languages whose toolchains this machine has, in a place an unprivileged uid can reach (a toolchain
 * under /root is invisible to the sandbox, so it is not offered).
 */
export async function detectLanguages(): Promise<Language[]> {
  const found = await Promise.all(CANDIDATES.map(async (candidate) => {
    const tools = candidate.tools.map((alternatives) => alternatives.map(resolve).find((p): p is string => p !== null) ?? null);
    if (tools.some((t) => t === null)) return null;
    const built = candidate.build(tools as string[]);
    if (!built) return null;
    try {
      const version = await candidate.version(tools as string[]);
      return { id: candidate.id, name: candidate.name, version, ...built } satisfies Language;
    } catch {
      return null;
    }
  }));
  return found.filter((l): l is Language => l !== null);
}

function resolve(file: string): string | null {
  try {
    const real = realpathSync(file);
    return isRunnable(real) ? real : null;
  } catch {
    return null;
  }
}

/** Executable by anyone, and every directory above it searchable by anyone. */
function isRunnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    if ((statSync(file).mode & 0o001) === 0) return false;
    return worldReachable(path.dirname(file));
  } catch {
    return false;
  }
}

function worldReachable(dir: string): boolean {
  for (let d = dir; ; d = path.dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false;
    if (d === path.dirname(d)) return true;
  }
}

/**
 * Candidates' TypeScript is transpiled by the last JavaScript release line of the compiler (`typescript-js`, an alias
 * of typescript@6): TypeScript 7, which type-checks this project, is a native binary without `transpileModule`.
 */
function typescriptDir(): string | null {
  try {
    const dir = path.dirname(createRequire(import.meta.url).resolve('typescript-js/package.json'));
    return realpathSync(dir);
  } catch {
    return null;
  }
}

function typescriptVersion(): string | null {
  const dir = typescriptDir();
  return dir ? (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version : null;
}

async function output(file: string, args: string[]): Promise<string> {
  const { stdout, stderr } = await exec(file, args, { timeout: 15_000, env: { PATH: '/usr/bin:/bin' } });
  return (stdout.trim() || stderr.trim()).split('\n')[0]!.trim();
}
